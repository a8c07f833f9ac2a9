# Matrix multiplication with B transposed: C[i, j] = sum_k A[i, k] * B[j, k], 96x64 @ (80x64)^T, float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((96, 64), "float32"), B: T.Buffer((80, 64), "float32"), C: T.Buffer((96, 80), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k in T.grid(96, 80, 64):
        with T.block("NT_matmul"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_j, v_k])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]
