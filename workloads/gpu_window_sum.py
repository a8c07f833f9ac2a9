# Window sum B[i] = A[i] + A[i + 1] + A[i + 2] over 1024 outputs, float32, as the course writes it for the GPU (examples/gpu/window_sum_shared.sch caches A in shared memory per thread block).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1026,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i in range(1024):
        with T.block("C"):
            vi = T.axis.spatial(1024, i)
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
