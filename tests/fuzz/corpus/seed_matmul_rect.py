# Rectangular matrix multiplication C[32, 48] = A[32, 96] @ B[96, 48], float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 96), "float32"), B: T.Buffer((96, 48), "float32"), C: T.Buffer((32, 48), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, j, k in T.grid(32, 48, 96):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0.0
            C[vi, vj] += A[vi, vk] * B[vk, vj]
