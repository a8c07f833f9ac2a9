# B = A * 2 over a 8x16x16 float32 tensor.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 16, 16), "float32"), B: T.Buffer((8, 16, 16), "float32")):
    for i, j, k in T.grid(8, 16, 16):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            T.reads(A[vi, vj, vk])
            T.writes(B[vi, vj, vk])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
