# A float16 128x128x128 matmul with float32 accumulation on tensor cores through ldmatrix and mma.sync, as examples/gpu/matmul_mma.sch tensorizes it (TVM's mma_schedule): 2x2 thread blocks of 4 warps (threadIdx.y), each warp 2x2 16x16 accumulator tiles in the mma.sync register layout; A and B staged per k step in padded shared memory and loaded by ldmatrix (B transposed into mma's col operand). Lowering compacts the warp buffers to one warp's tiles; the target keeps them as 8 registers per tile in each lane (16 halves of A, 16 of B, 32 floats of C) and the builtins' offsets become the lane's. Barriers go before the ldmatrix loads (they read what the block fetched) and at the top of the k loop.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float16"), B: T.Buffer((128, 128), "float16"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    s0 = T.int32()
    s1 = T.int32()
    s0_1 = T.int32()
    s1_1 = T.int32()
    s0_2 = T.int32()
    s1_2 = T.int32()
    # with T.block("root"):
    A_shared = T.alloc_buffer((128, 128), "float16", scope="shared")
    B_shared = T.alloc_buffer((128, 128), "float16", scope="shared")
    A_shared_warp = T.alloc_buffer((8, 8, 32, 8), "float16", scope="warp")
    B_shared_warp = T.alloc_buffer((8, 8, 32, 8), "float16", scope="warp")
    C_warp = T.alloc_buffer((8, 8, 32, 8), scope="warp")
    for i_0_0_j_0_0_fused in T.thread_binding(2, thread="blockIdx.x"):
        for i_0_1_j_0_1_fused in T.thread_binding(2, thread="blockIdx.y"):
            for j_0_2_i_0_2_fused in T.thread_binding(4, thread="threadIdx.y"):
                for i_0_3_init, j_0_3_init, i_0_4_init, j_0_4_init in T.grid(2, 1, 1, 2):
                    with T.block("C_o_init"):
                        v_i_o = T.axis.spatial(8, i_0_0_j_0_0_fused * 4 + j_0_2_i_0_2_fused % 2 * 2 + i_0_3_init + i_0_4_init)
                        v_j_o = T.axis.spatial(8, i_0_1_j_0_1_fused * 4 + j_0_2_i_0_2_fused // 2 * 2 + j_0_3_init * 2 + j_0_4_init)
                        T.reads()
                        T.writes(C_warp[v_i_o, v_j_o, 0:32, 0:8])
                        with T.block("C_init_o"):
                            v_i_i_init_o = T.axis.spatial(1, 0)
                            v_j_i_init_o = T.axis.spatial(1, 0)
                            T.reads()
                            T.writes(C_warp[v_i_o, v_j_o, 0:32, 0:8])
                            C_warp_1 = T.match_buffer(C_warp[v_i_o, v_j_o, 0:32, 0:8], (32, 8), scope="warp", offset_factor=1)
                            for tx in T.thread_binding(32, thread="threadIdx.x"):
                                T.evaluate(T.mma_fill("float32", 8, C_warp_1.data, C_warp_1.elem_offset))
                for k_0_0 in range(4):
                    for ax0_ax1_fused_0 in range(2):
                        for ax0_ax1_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                            for ax0_ax1_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                for ax0_ax1_fused_3 in T.vectorized(8):
                                    with T.block("A_shared"):
                                        v0 = T.axis.spatial(128, i_0_0_j_0_0_fused * 64 + (ax0_ax1_fused_0 * 1024 + ax0_ax1_fused_1 * 256 + ax0_ax1_fused_2 * 8 + ax0_ax1_fused_3) // 32)
                                        v1 = T.axis.spatial(128, k_0_0 * 32 + (ax0_ax1_fused_0 * 1024 + ax0_ax1_fused_1 * 256 + ax0_ax1_fused_2 * 8 + ax0_ax1_fused_3) % 32)
                                        T.reads(A[v0, v1])
                                        T.writes(A_shared[v0, v1])
                                        T.block_attr({"buffer_dim_align": [[0, 0, 32, 8]]})
                                        A_shared[v0, v1] = A[v0, v1]
                    for ax0_ax1_fused_0 in range(2):
                        for ax0_ax1_fused_1 in T.thread_binding(4, thread="threadIdx.y"):
                            for ax0_ax1_fused_2 in T.thread_binding(32, thread="threadIdx.x"):
                                for ax0_ax1_fused_3 in T.vectorized(8):
                                    with T.block("B_shared"):
                                        v0 = T.axis.spatial(128, k_0_0 * 32 + (ax0_ax1_fused_0 * 1024 + ax0_ax1_fused_1 * 256 + ax0_ax1_fused_2 * 8 + ax0_ax1_fused_3) // 64)
                                        v1 = T.axis.spatial(128, i_0_1_j_0_1_fused * 64 + (ax0_ax1_fused_0 * 1024 + ax0_ax1_fused_1 * 256 + ax0_ax1_fused_2 * 8 + ax0_ax1_fused_3) % 64)
                                        T.reads(B[v0, v1])
                                        T.writes(B_shared[v0, v1])
                                        T.block_attr({"buffer_dim_align": [[0, 0, 32, 8]]})
                                        B_shared[v0, v1] = B[v0, v1]
                    for k_0_1 in range(2):
                        for ax0_0, ax1_0 in T.grid(2, 1):
                            with T.block("A_shared_warp_o"):
                                v0_o = T.axis.spatial(8, i_0_0_j_0_0_fused * 4 + j_0_2_i_0_2_fused % 2 * 2 + ax0_0)
                                v1_o = T.axis.spatial(8, k_0_0 * 2 + ax1_0 + k_0_1)
                                T.reads(A_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                                T.writes(A_shared_warp[v0_o, v1_o, 0:32, 0:8])
                                warp = T.match_buffer(A_shared_warp[v0_o, v1_o, 0:32, 0:8], (32, 8), "float16", scope="warp", align=64, offset_factor=16)
                                shared = T.match_buffer(A_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), "float16", strides=(s0, s1), scope="shared", align=64, offset_factor=16)
                                for tx in T.thread_binding(32, thread="threadIdx.x"):
                                    T.evaluate(T.ptx_ldmatrix("float16", T.bool(False), 4, ".b16", warp.data, warp.elem_offset + 8 * tx, T.tvm_access_ptr(T.type_annotation("float16"), shared.data, shared.elem_offset, s0 * 16, 1), s0 * (tx % 16) + 8 * (tx // 16)))
                        for ax0_0, ax1_0 in T.grid(1, 2):
                            with T.block("B_shared_warp_o"):
                                v0_o = T.axis.spatial(8, k_0_0 * 2 + ax0_0 + k_0_1)
                                v1_o = T.axis.spatial(8, i_0_1_j_0_1_fused * 4 + j_0_2_i_0_2_fused // 2 * 2 + ax1_0)
                                T.reads(B_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                                T.writes(B_shared_warp[v0_o, v1_o, 0:32, 0:8])
                                warp = T.match_buffer(B_shared_warp[v0_o, v1_o, 0:32, 0:8], (32, 8), "float16", scope="warp", align=64, offset_factor=16)
                                shared = T.match_buffer(B_shared[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), "float16", strides=(s0_1, s1_1), scope="shared", align=64, offset_factor=16)
                                for tx in T.thread_binding(32, thread="threadIdx.x"):
                                    T.evaluate(T.ptx_ldmatrix("float16", T.bool(True), 4, ".b16", warp.data, warp.elem_offset + 8 * tx, T.tvm_access_ptr(T.type_annotation("float16"), shared.data, shared.elem_offset, s0_1 * 16, 1), s0_1 * (tx % 16) + 8 * (tx // 16)))
                        for i_0_3, j_0_3, k_0_2, i_0_4, j_0_4 in T.grid(2, 1, 1, 1, 2):
                            with T.block("C_o_update"):
                                v_i_o = T.axis.spatial(8, i_0_0_j_0_0_fused * 4 + j_0_2_i_0_2_fused % 2 * 2 + i_0_3 + i_0_4)
                                v_j_o = T.axis.spatial(8, i_0_1_j_0_1_fused * 4 + j_0_2_i_0_2_fused // 2 * 2 + j_0_3 * 2 + j_0_4)
                                v_k_o = T.axis.reduce(8, k_0_0 * 2 + k_0_1 + k_0_2)
                                T.reads(C_warp[v_i_o, v_j_o, 0:32, 0:8], A_shared_warp[v_i_o, v_k_o, 0:32, 0:8], B_shared_warp[v_k_o, v_j_o, 0:32, 0:8])
                                T.writes(C_warp[v_i_o, v_j_o, 0:32, 0:8])
                                with T.block("C_o"):
                                    v_i_i_o = T.axis.spatial(1, 0)
                                    v_j_i_o = T.axis.spatial(1, 0)
                                    v_k_i_o = T.axis.reduce(1, 0)
                                    T.reads(C_warp[v_i_o, v_j_o, 0:32, 0:8], A_shared_warp[v_i_o, v_k_o, 0:32, 0:8], B_shared_warp[v_k_o, v_j_o, 0:32, 0:8])
                                    T.writes(C_warp[v_i_o, v_j_o, 0:32, 0:8])
                                    A_1 = T.match_buffer(A_shared_warp[v_i_o, v_k_o, 0:32, 0:8], (32, 8), "float16", scope="warp", align=64, offset_factor=16)
                                    B_1 = T.match_buffer(B_shared_warp[v_k_o, v_j_o, 0:32, 0:8], (32, 8), "float16", scope="warp", align=64, offset_factor=16)
                                    C_1 = T.match_buffer(C_warp[v_i_o, v_j_o, 0:32, 0:8], (32, 8), scope="warp", align=64, offset_factor=16)
                                    for tx in T.thread_binding(32, thread="threadIdx.x"):
                                        T.evaluate(T.ptx_mma("float32", "m16n8k16", "row", "col", "fp16", "fp16", "fp32", A_1.data, A_1.elem_offset + tx * 8, B_1.data, B_1.elem_offset + tx * 8, C_1.data, C_1.elem_offset + tx * 8, T.bool(False)))
                                        T.evaluate(T.ptx_mma("float32", "m16n8k16", "row", "col", "fp16", "fp16", "fp32", A_1.data, A_1.elem_offset + tx * 8, B_1.data, B_1.elem_offset + tx * 8 + 4, C_1.data, C_1.elem_offset + tx * 8 + 4, T.bool(False)))
                for ax0_0, ax1_0 in T.grid(2, 2):
                    with T.block("C_warp_o"):
                        v0_o = T.axis.spatial(8, i_0_0_j_0_0_fused * 4 + j_0_2_i_0_2_fused % 2 * 2 + ax0_0)
                        v1_o = T.axis.spatial(8, i_0_1_j_0_1_fused * 4 + j_0_2_i_0_2_fused // 2 * 2 + ax1_0)
                        T.reads(C_warp[v0_o, v1_o, 0:32, 0:8])
                        T.writes(C[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16])
                        C_warp_1 = T.match_buffer(C_warp[v0_o, v1_o, 0:32, 0:8], (32, 8), scope="warp", offset_factor=1)
                        C_1 = T.match_buffer(C[v0_o * 16:v0_o * 16 + 16, v1_o * 16:v1_o * 16 + 16], (16, 16), strides=(s0_2, s1_2), offset_factor=1)
                        for tx in T.thread_binding(32, thread="threadIdx.x"):
                            T.evaluate(T.mma_store("float32", 16, 16, T.tvm_access_ptr(T.type_annotation("float32"), C_1.data, C_1.elem_offset, s0_2 * 16, 2), C_warp_1.data, C_warp_1.elem_offset, s0_2))
