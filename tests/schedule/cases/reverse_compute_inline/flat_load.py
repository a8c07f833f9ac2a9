# C reads the 16x16 producer B through a flattened index
# (B[v // 16, v % 16]): the load map is affine, its inverse at B's store
# indices (vi, vj) is v = vj + vi * 16, so B writes C[vj + vi * 16].
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((256,), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for k in range(256):
        with T.block("C"):
            vk = T.axis.spatial(256, k)
            C[vk] = B[vk // 16, vk % 16] * T.float32(2)
