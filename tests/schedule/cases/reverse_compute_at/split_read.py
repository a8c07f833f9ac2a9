# B is a 4x4 tile of A * 3; C reads it back as a flat vector of 16:
# C[v] = B[v // 4, v % 4] + 1.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((4, 4))
    for i, j in T.grid(4, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
    for i in range(16):
        with T.block("C"):
            v = T.axis.spatial(16, i)
            C[v] = B[v // 4, v % 4] + T.float32(1)
