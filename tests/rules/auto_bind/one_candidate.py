# thread_extents [64, 2048]: one candidate fits under 1024, so it is taken
# without a sample.
# options: thread_extents=[64,2048]
@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32")):
    for i, j in T.grid(32, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj, vi]
