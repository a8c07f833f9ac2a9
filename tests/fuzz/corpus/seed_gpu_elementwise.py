# GPU elementwise kernel: 1024 float32 elements split over blockIdx.x (8) and threadIdx.x (128), staged through a per-thread "local" buffer; B = A * A.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "target": "cuda", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    A_local = T.alloc_buffer((1024,), scope="local")
    for i_0 in T.thread_binding(8, thread="blockIdx.x"):
        for i_1 in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("A_local"):
                v0 = T.axis.spatial(1024, i_0 * 128 + i_1)
                T.reads(A[v0])
                T.writes(A_local[v0])
                A_local[v0] = A[v0]
            with T.block("B"):
                v0 = T.axis.spatial(1024, i_0 * 128 + i_1)
                T.reads(A_local[v0])
                T.writes(B[v0])
                B[v0] = A_local[v0] * A_local[v0]
