# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    B = T.alloc_buffer((32, 32))
    for i, j in T.grid(32, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + A[vi, vj]
    for i, j in T.grid(32, 32):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = B[vi, vj] * T.float32(3)
