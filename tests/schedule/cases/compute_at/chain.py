# A three-stage chain B = A + 1; C = B * 3; D = C - 2 on 8x8x8 int32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8, 8), "int32"), D: T.Buffer((8, 8, 8), "int32")):
    B = T.alloc_buffer((8, 8, 8), "int32")
    C = T.alloc_buffer((8, 8, 8), "int32")
    for i, j, k in T.grid(8, 8, 8):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] + 1
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[vi, vj, vk] * 3
    for i, j, k in T.grid(8, 8, 8):
        with T.block("D"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            D[vi, vj, vk] = C[vi, vj, vk] - 2
