# A float16 128x128x128 matmul with float32 accumulation on tensor cores, as tensorize leaves it: 2x2 blocks of 4 warps (threadIdx.y), each warp 2x2 WMMA accumulator fragments, A and B staged per k step in shared memory (a cooperative fetch over threadIdx.y and threadIdx.x) and loaded into matrix_a / matrix_b fragments. Lowering compacts the fragments to one warp's tile and binds each view's offset to the compacted buffer; the barriers go before the fragment loads and at the top of the k loop.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float16"), B: T.Buffer((128, 128), "float16"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    d1 = T.int32()
    d0 = T.int32()
    s1 = T.int32()
    s0 = T.int32()
    d1_1 = T.int32()
    d0_1 = T.int32()
    s1_1 = T.int32()
    s0_1 = T.int32()
    d1_2 = T.int32()
    d0_2 = T.int32()
    a1 = T.int32()
    a0 = T.int32()
    b1 = T.int32()
    b0 = T.int32()
    c1 = T.int32()
    c0 = T.int32()
    d1_3 = T.int32()
    d0_3 = T.int32()
    s1_2 = T.int32()
    s0_2 = T.int32()
    # with T.block("root"):
    C_wmma_accumulator = T.alloc_buffer((128, 128), scope="wmma.accumulator")
    A_shared = T.alloc_buffer((128, 128), "float16", scope="shared")
    B_shared = T.alloc_buffer((128, 128), "float16", scope="shared")
    A_shared_wmma_matrix_a = T.alloc_buffer((128, 128), "float16", scope="wmma.matrix_a")
    B_shared_wmma_matrix_b = T.alloc_buffer((128, 128), "float16", scope="wmma.matrix_b")
    for i_0 in T.thread_binding(2, thread="blockIdx.y"):
        for j_0 in T.thread_binding(2, thread="blockIdx.x"):
            for i_1_j_1_fused in T.thread_binding(4, thread="threadIdx.y"):
                for i_2_init, j_2_init in T.grid(2, 2):
                    with T.block("C_init_o"):
                        v_i_o = T.axis.spatial(8, i_0 * 4 + i_1_j_1_fused // 2 * 2 + i_2_init)
                        v_j_o = T.axis.spatial(8, j_0 * 4 + i_1_j_1_fused % 2 * 2 + j_2_init)
                        T.reads()
                        T.writes(C_wmma_accumulator[v_i_o * 16:v_i_o * 16 + 16, v_j_o * 16:v_j_o * 16 + 16])
                        C_1 = T.match_buffer(C_wmma_accumulator[v_i_o * 16:v_i_o * 16 + 16, v_j_o * 16:v_j_o * 16 + 16], (16, 16), strides=(d1, d0), scope="wmma.accumulator", align=64, offset_factor=16)
                        T.evaluate(T.tvm_fill_fragment(C_1.data, 16, 16, 16, C_1.elem_offset // d1 // 16 * (d1 // 16) + C_1.elem_offset % d1 // 16, T.float32(0)))
                for k_0 in range(8):
                    for ax0_ax1_fused_0 in range(8):
                        for ax0_ax1_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                            for ax0_ax1_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                with T.block("A_shared"):
                                    v0 = T.axis.spatial(128, i_0 * 64 + (ax0_ax1_fused_0 * 128 + ax0_ax1_fused_1 * 32 + ax0_ax1_fused_2) // 16)
                                    v1 = T.axis.spatial(128, k_0 * 16 + (ax0_ax1_fused_0 * 128 + ax0_ax1_fused_1 * 32 + ax0_ax1_fused_2) % 16)
                                    T.reads(A[v0, v1])
                                    T.writes(A_shared[v0, v1])
                                    A_shared[v0, v1] = A[v0, v1]
                    for ax0_ax1_fused_0 in range(8):
                        for ax0_ax1_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                            for ax0_ax1_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                with T.block("B_shared"):
                                    v0 = T.axis.spatial(128, k_0 * 16 + (ax0_ax1_fused_0 * 128 + ax0_ax1_fused_1 * 32 + ax0_ax1_fused_2) // 64)
                                    v1 = T.axis.spatial(128, j_0 * 64 + (ax0_ax1_fused_0 * 128 + ax0_ax1_fused_1 * 32 + ax0_ax1_fused_2) % 64)
                                    T.reads(B[v0, v1])
                                    T.writes(B_shared[v0, v1])
                                    B_shared[v0, v1] = B[v0, v1]
                    for k_1 in range(1):
                        for ax0_0 in range(2):
                            with T.block("A_shared_wmma.matrix_a_o"):
                                v0_o = T.axis.spatial(8, i_0 * 4 + i_1_j_1_fused // 2 * 2 + ax0_0)
                                v1_o = T.axis.spatial(8, k_0)
                                T.reads(A_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                                T.writes(A_shared_wmma_matrix_a[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                                A_1 = T.match_buffer(A_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), "float16", strides=(s1, s0), scope="shared", align=64, offset_factor=16)
                                C_1 = T.match_buffer(A_shared_wmma_matrix_a[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), "float16", strides=(d1_1, d0_1), scope="wmma.matrix_a", align=64, offset_factor=16)
                                T.evaluate(T.tvm_load_matrix_sync(C_1.data, 16, 16, 16, C_1.elem_offset // d1_1 // 16 * (d1_1 // 16) + C_1.elem_offset % d1_1 // 16, T.tvm_access_ptr(T.type_annotation("float16"), A_1.data, A_1.elem_offset, s1 * 16, 1), s1, "row_major"))
                        for ax1_0 in range(2):
                            with T.block("B_shared_wmma.matrix_b_o"):
                                v0_o = T.axis.spatial(8, k_0)
                                v1_o = T.axis.spatial(8, j_0 * 4 + i_1_j_1_fused % 2 * 2 + ax1_0)
                                T.reads(B_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                                T.writes(B_shared_wmma_matrix_b[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                                A_1 = T.match_buffer(B_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), "float16", strides=(s1_1, s0_1), scope="shared", align=64, offset_factor=16)
                                C_1 = T.match_buffer(B_shared_wmma_matrix_b[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), "float16", strides=(d1_2, d0_2), scope="wmma.matrix_b", align=64, offset_factor=16)
                                T.evaluate(T.tvm_load_matrix_sync(C_1.data, 16, 16, 16, C_1.elem_offset // d1_2 // 16 * (d1_2 // 16) + C_1.elem_offset % d1_2 // 16, T.tvm_access_ptr(T.type_annotation("float16"), A_1.data, A_1.elem_offset, s1_1 * 16, 1), s1_1, "row_major"))
                        for i_2, j_2 in T.grid(2, 2):
                            with T.block("C_update_o"):
                                v_i_o = T.axis.spatial(8, i_0 * 4 + i_1_j_1_fused // 2 * 2 + i_2)
                                v_j_o = T.axis.spatial(8, j_0 * 4 + i_1_j_1_fused % 2 * 2 + j_2)
                                v_k_o = T.axis.reduce(8, k_0 + k_1)
                                T.reads(C_wmma_accumulator[v_i_o * 16:v_i_o * 16 + 16, v_j_o * 16:v_j_o * 16 + 16], A_shared_wmma_matrix_a[v_i_o * 16:v_i_o * 16 + 16, v_k_o * 16:v_k_o * 16 + 16], B_shared_wmma_matrix_b[v_k_o * 16:v_k_o * 16 + 16, v_j_o * 16:v_j_o * 16 + 16])
                                T.writes(C_wmma_accumulator[v_i_o * 16:v_i_o * 16 + 16, v_j_o * 16:v_j_o * 16 + 16])
                                A_1 = T.match_buffer(A_shared_wmma_matrix_a[v_i_o * 16:v_i_o * 16 + 16, v_k_o * 16:v_k_o * 16 + 16], (16, 16), "float16", strides=(a1, a0), scope="wmma.matrix_a", align=64, offset_factor=16)
                                B_1 = T.match_buffer(B_shared_wmma_matrix_b[v_k_o * 16:v_k_o * 16 + 16, v_j_o * 16:v_j_o * 16 + 16], (16, 16), "float16", strides=(b1, b0), scope="wmma.matrix_b", align=64, offset_factor=16)
                                C_1 = T.match_buffer(C_wmma_accumulator[v_i_o * 16:v_i_o * 16 + 16, v_j_o * 16:v_j_o * 16 + 16], (16, 16), strides=(c1, c0), scope="wmma.accumulator", align=64, offset_factor=16)
                                T.evaluate(T.tvm_mma_sync(C_1.data, C_1.elem_offset // c1 // 16 * (c1 // 16) + C_1.elem_offset % c1 // 16, A_1.data, A_1.elem_offset // a1 // 16 * (a1 // 16) + A_1.elem_offset % a1 // 16, B_1.data, B_1.elem_offset // b1 // 16 * (b1 // 16) + B_1.elem_offset % b1 // 16, C_1.data, C_1.elem_offset // c1 // 16 * (c1 // 16) + C_1.elem_offset % c1 // 16))
                for ax0_0, ax1_0 in T.grid(2, 2):
                    with T.block("C_wmma.accumulator_o"):
                        v0_o = T.axis.spatial(8, i_0 * 4 + i_1_j_1_fused // 2 * 2 + ax0_0)
                        v1_o = T.axis.spatial(8, j_0 * 4 + i_1_j_1_fused % 2 * 2 + ax1_0)
                        T.reads(C_wmma_accumulator[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                        T.writes(C[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                        A_1 = T.match_buffer(C_wmma_accumulator[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), strides=(d1_3, d0_3), scope="wmma.accumulator", align=64, offset_factor=16)
                        C_1 = T.match_buffer(C[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), strides=(s1_2, s0_2), align=64, offset_factor=16)
                        T.evaluate(T.tvm_store_matrix_sync(A_1.data, 16, 16, 16, A_1.elem_offset // d1_3 // 16 * (d1_3 // 16) + A_1.elem_offset % d1_3 // 16, T.tvm_access_ptr(T.type_annotation("float32"), C_1.data, C_1.elem_offset, s1_2 * 16, 2), s1_2, "row_major"))
