# C = A @ B + bias, A, B, C of shape 128x128, bias (128,), float32. B is a
# layout-free weight (known ahead of the calls, as a model's weights are):
# MetaSchedule's RewriteLayout packs it once into the layout the tuned
# kernel reads, outside the timed calls.
# from tvm.script import tir as T

@T.prim_func
def matmul_bias(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), bias: T.Buffer((128,), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "matmul_bias", "layout_free_buffers": [1], "tir.noalias": T.bool(True)})
    # with T.block("root"):
    matmul = T.alloc_buffer((128, 128))
    for i, j, k in T.grid(128, 128, 128):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(matmul[vi, vj])
            with T.init():
                matmul[vi, vj] = T.float32(0)
            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(128, 128):
        with T.block("bias_add"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(matmul[vi, vj], bias[vj])
            T.writes(C[vi, vj])
            C[vi, vj] = matmul[vi, vj] + bias[vj]
