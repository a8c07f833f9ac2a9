# out = A @ B + C for 1024x1024 float32 matrices: the seeds' Ansor workload
# (configs/ansor.yaml). B is a layout-free weight: known before the calls,
# so RewriteLayout may pack it once into the layout the kernel reads.
# from tvm.script import tir as T

@T.prim_func
def matmul_add(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"), C: T.Buffer((1024, 1024), "float32"), out: T.Buffer((1024, 1024), "float32")):
    T.func_attr({"global_symbol": "matmul_add", "layout_free_buffers": [1], "tir.noalias": T.bool(True)})
    # with T.block("root"):
    matmul = T.alloc_buffer((1024, 1024))
    for i, j, k in T.grid(1024, 1024, 1024):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(matmul[vi, vj])
            with T.init():
                matmul[vi, vj] = T.float32(0)
            matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(1024, 1024):
        with T.block("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(matmul[vi, vj], C[vi, vj])
            T.writes(out[vi, vj])
            out[vi, vj] = matmul[vi, vj] + C[vi, vj]
