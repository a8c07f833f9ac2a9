# Two stages under shared outer loops: C = A * 2, B = C + 1, 16x16x16 float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16, 16), "float32"), B: T.Buffer((16, 16, 16), "float32")):
    C = T.alloc_buffer((16, 16, 16))
    for i, j in T.grid(16, 16):
        for k in range(16):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                T.reads(A[vi, vj, vk])
                T.writes(C[vi, vj, vk])
                C[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
        for k2 in range(16):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k2])
                T.reads(C[vi, vj, vk])
                T.writes(B[vi, vj, vk])
                B[vi, vj, vk] = C[vi, vj, vk] + T.float32(1)
