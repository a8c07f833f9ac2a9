# Reshape then slice: B = A * 2 + 1 stored flat (A 64x32, B 2048), C = B viewed as 8x8x32, D[i, j, k] = C[i, j + 1, k]^2 for the 8x7x30 slice, float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), D: T.Buffer((8, 7, 30), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    B = T.alloc_buffer((2048,))
    C = T.alloc_buffer((8, 8, 32))
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi * 32 + vj])
            B[vi * 32 + vj] = A[vi, vj] * T.float32(2) + T.float32(1)
    for i, j, k in T.grid(8, 8, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            T.reads(B[(vi * 8 + vj) * 32 + vk])
            T.writes(C[vi, vj, vk])
            C[vi, vj, vk] = B[(vi * 8 + vj) * 32 + vk]
    for i, j, k in T.grid(8, 7, 30):
        with T.block("D"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            T.reads(C[vi, vj + 1, vk])
            T.writes(D[vi, vj, vk])
            D[vi, vj, vk] = C[vi, vj + 1, vk] * C[vi, vj + 1, vk]
