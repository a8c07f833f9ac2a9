# The outermost loop is parallel, so no loop can be fused for blockIdx.x:
# TVM fails on an empty fuse; tessel rejects the candidate, saying why.
@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32")):
    for i in T.parallel(16):
        for j in range(32):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
