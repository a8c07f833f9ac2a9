# A batch of one: B = A * 2, C = B + 1 on (1, 16, 4) under a batch loop b of
# extent 1.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1, 16, 4), "float32"), C: T.Buffer((1, 16, 4), "float32")):
    B = T.alloc_buffer((1, 16, 4))
    for b, i, j in T.grid(1, 16, 4):
        with T.block("B"):
            vb, vi, vj = T.axis.remap("SSS", [b, i, j])
            B[vb, vi, vj] = A[vb, vi, vj] * T.float32(2)
    for b, i, j in T.grid(1, 16, 4):
        with T.block("C"):
            vb, vi, vj = T.axis.remap("SSS", [b, i, j])
            C[vb, vi, vj] = B[vb, vi, vj] + T.float32(1)
