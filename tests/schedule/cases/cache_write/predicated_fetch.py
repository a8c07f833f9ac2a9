# GPU-scheduled matrix multiplication C = A @ B, 32x32x32 float32: 2x2 thread blocks of 16x16 threads, k tiles of 8 staged in shared memory, accumulation in a local buffer.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "target": "cuda", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    A_shared = T.alloc_buffer((32, 32), scope="shared")
    B_shared = T.alloc_buffer((32, 32), scope="shared")
    C_local = T.alloc_buffer((32, 32), scope="local")
    for i_0 in T.thread_binding(2, thread="blockIdx.y"):
        for j_0 in T.thread_binding(2, thread="blockIdx.x"):
            for k_0 in range(4):
                for ax_0 in T.thread_binding(16, thread="threadIdx.y"):
                    for ax_1 in T.thread_binding(16, thread="threadIdx.x"):
                        with T.block("A_shared"):
                            v0 = T.axis.spatial(32, i_0 * 16 + (ax_0 * 16 + ax_1) // 8)
                            v1 = T.axis.spatial(32, k_0 * 8 + (ax_0 * 16 + ax_1) % 8)
                            T.where(ax_0 * 16 + ax_1 < 128)
                            T.reads(A[v0, v1])
                            T.writes(A_shared[v0, v1])
                            A_shared[v0, v1] = A[v0, v1]
                for ax_0 in T.thread_binding(16, thread="threadIdx.y"):
                    for ax_1 in T.thread_binding(16, thread="threadIdx.x"):
                        with T.block("B_shared"):
                            v0 = T.axis.spatial(32, k_0 * 8 + (ax_0 * 16 + ax_1) // 16)
                            v1 = T.axis.spatial(32, j_0 * 16 + (ax_0 * 16 + ax_1) % 16)
                            T.where(ax_0 * 16 + ax_1 < 128)
                            T.reads(B[v0, v1])
                            T.writes(B_shared[v0, v1])
                            B_shared[v0, v1] = B[v0, v1]
                for i_1 in T.thread_binding(16, thread="threadIdx.y"):
                    for j_1 in T.thread_binding(16, thread="threadIdx.x"):
                        for k_1 in range(8):
                            with T.block("C"):
                                vi = T.axis.spatial(32, i_0 * 16 + i_1)
                                vj = T.axis.spatial(32, j_0 * 16 + j_1)
                                vk = T.axis.reduce(32, k_0 * 8 + k_1)
                                T.reads(A_shared[vi, vk], B_shared[vk, vj])
                                T.writes(C_local[vi, vj])
                                with T.init():
                                    C_local[vi, vj] = T.float32(0)
                                C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
            for i_1 in T.thread_binding(16, thread="threadIdx.y"):
                for j_1 in T.thread_binding(16, thread="threadIdx.x"):
                    with T.block("C_local"):
                        v0 = T.axis.spatial(32, i_0 * 16 + i_1)
                        v1 = T.axis.spatial(32, j_0 * 16 + j_1)
                        T.reads(C_local[v0, v1])
                        T.writes(C[v0, v1])
                        C[v0, v1] = C_local[v0, v1]
