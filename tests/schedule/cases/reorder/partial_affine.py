# Rows chosen by a square: vi = i * i + j is not affine over all loops,
# but it is over j and k, the loops being reordered.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((14, 4), "float32"), B: T.Buffer((14, 4), "float32")):
    for i, j, k in T.grid(3, 4, 4):
        with T.block("B"):
            vi = T.axis.spatial(14, i * i + j)
            vk = T.axis.spatial(4, k)
            B[vi, vk] = A[vi, vk] + T.float32(1)
