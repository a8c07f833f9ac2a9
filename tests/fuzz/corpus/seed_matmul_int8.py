# Quantized matrix multiplication: int8 A[64, 64] @ int8 B[64, 64] accumulated in int32 C.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "int8"), B: T.Buffer((64, 64), "int8"), C: T.Buffer((64, 64), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = 0
            C[v_i, v_j] = C[v_i, v_j] + T.Cast("int32", A[v_i, v_k]) * T.Cast("int32", B[v_k, v_j])
