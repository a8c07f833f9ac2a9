# cache_write to a local accumulator computed under a parallel loop: the
# allocation lands inside the parallel loop (private per iteration) and is
# compacted to the 4x16 tile; the root block's unroll pragma (max step 16)
# covers the nest: each 16-iteration inner loop becomes 16 stores, the loops
# around them (4 x 16 = 64 steps) stay loops.
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
