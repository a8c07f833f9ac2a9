# Integer matrix multiplication on tensor cores: int8 A[128, 128] @ int8 B[128, 128], products and sums in int32 C (MultiLevelTilingTensorCore's s8 WMMA group).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "int8"), B: T.Buffer((128, 128), "int8"), C: T.Buffer((128, 128), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = 0
            C[v_i, v_j] = C[v_i, v_j] + T.Cast("int32", A[v_i, v_k]) * T.Cast("int32", B[v_k, v_j])
