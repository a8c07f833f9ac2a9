# B = A * 2 on the first 100 elements of a flattened 8x8x8 space: the
# predicate bounds the sum of all three loops.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8, 8), "float32"), B: T.Buffer((8, 8, 8), "float32")):
    for i, j, k in T.grid(8, 8, 8):
        with T.block("B"):
            T.where(i * 64 + j * 8 + k < 100)
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
