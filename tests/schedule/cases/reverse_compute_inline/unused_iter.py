# C[vi, vj] = B[vi] * A[vj]: vj does not occur in the load of B, so B's
# iterations cannot produce C's (each B element feeds 8 C elements).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8,))
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi] + T.float32(1)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi] * A[vj]
