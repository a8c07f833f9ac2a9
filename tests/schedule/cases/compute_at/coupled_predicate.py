# B holds A * 2 in 5 x 3 tiles of each row of 12; the tail tile is cut by a
# predicate on k0 * 3 + k1, which the bindings use apart.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 12), "float32"), C: T.Buffer((8, 12), "float32")):
    B = T.alloc_buffer((8, 5, 3))
    for i, k0, k1 in T.grid(8, 5, 3):
        with T.block("B"):
            T.where(k0 * 3 + k1 < 12)
            vi, vk0, vk1 = T.axis.remap("SSS", [i, k0, k1])
            B[vi, vk0, vk1] = A[vi, vk0 * 3 + vk1] * T.float32(2)
    for i, k in T.grid(8, 12):
        with T.block("C"):
            vi, vk = T.axis.remap("SS", [i, k])
            C[vi, vk] = B[vi, vk // 3, vk % 3]
