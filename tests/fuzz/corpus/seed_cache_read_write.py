# Cache-read/cache-write style staging: A is copied into a "shared" buffer and B into a "local" one, the product is accumulated in a "local" C and written back; 32x32x32 float32 matmul.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    A_shared = T.alloc_buffer((32, 32), scope="shared")
    B_local = T.alloc_buffer([32, 32], dtype="float32", scope="local")
    C_local = T.alloc_buffer((32, 32), scope="local")
    for ax0, ax1 in T.grid(32, 32):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v0, v1])
            T.writes(A_shared[v0, v1])
            A_shared[v0, v1] = A[v0, v1]
    for ax0, ax1 in T.grid(32, 32):
        with T.block("B_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(B[v0, v1])
            T.writes(B_local[v0, v1])
            B_local[v0, v1] = B[v0, v1]
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A_shared[vi, vk], B_local[vk, vj])
            T.writes(C_local[vi, vj])
            with T.init():
                C_local[vi, vj] = T.float32(0)
            C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_local[vk, vj]
    for ax0, ax1 in T.grid(32, 32):
        with T.block("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(C_local[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_local[v0, v1]
