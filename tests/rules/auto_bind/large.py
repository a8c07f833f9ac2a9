# More iterations (6000) than max_threadblocks (2) x max_threads_per_block
# (512): split [None, 2, 512], the serial rest inside, predicated; no sample.
# options: max_threadblocks=2 max_threads_per_block=512
@T.prim_func
def main(A: T.Buffer((60, 100), "float32"), B: T.Buffer((60, 100), "float32")):
    for i, j in T.grid(60, 100):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(2)
