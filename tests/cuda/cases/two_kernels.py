# Two kernels with a global buffer between them, allocated by the host code; the second one has fewer threads on threadIdx.x than the first.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), C: T.Buffer((512,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    Tmp = T.alloc_buffer((1024,), "float32")
    for b in T.thread_binding(8, thread="blockIdx.x"):
        for t in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("twice"):
                v = T.axis.spatial(1024, b * 128 + t)
                Tmp[v] = A[v] * T.float32(2)
    for b in T.thread_binding(8, thread="blockIdx.x"):
        for t in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("pairs"):
                v = T.axis.spatial(512, b * 64 + t)
                C[v] = Tmp[v * 2] + Tmp[v * 2 + 1]
