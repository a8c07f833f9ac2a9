# Batched mixed-precision matrix multiplication on tensor cores: 4 batches of float16 A[32, 32] @ float16 B[32, 32], products and sums in float32 C (the batch stays outside the WMMA tiles).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 32, 32), "float16"), B: T.Buffer((4, 32, 32), "float16"), C: T.Buffer((4, 32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for b, i, j, k in T.grid(4, 32, 32, 32):
        with T.block("C"):
            v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
            T.reads(A[v_b, v_i, v_k], B[v_b, v_k, v_j])
            T.writes(C[v_b, v_i, v_j])
            with T.init():
                C[v_b, v_i, v_j] = T.float32(0)
            C[v_b, v_i, v_j] = C[v_b, v_i, v_j] + T.Cast("float32", A[v_b, v_i, v_k]) * T.Cast("float32", B[v_b, v_k, v_j])
