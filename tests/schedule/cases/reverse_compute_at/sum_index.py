# B = A * 2 on 7 elements; C[i, j] = B[i + j] (a Hankel matrix of B).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((7,), "float32"), C: T.Buffer((4, 4), "float32")):
    B = T.alloc_buffer((7,))
    for i in range(7):
        with T.block("B"):
            vi = T.axis.spatial(7, i)
            B[vi] = A[vi] * T.float32(2)
    for i, j in T.grid(4, 4):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi + vj]
