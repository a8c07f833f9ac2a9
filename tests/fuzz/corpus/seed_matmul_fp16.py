# Half-precision matrix multiplication C = A @ B, 64x64x64, float16 inputs, float16 accumulation.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float16"), B: T.Buffer((64, 64), "float16"), C: T.Buffer((64, 64), "float16")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float16(0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
