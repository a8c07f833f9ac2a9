# bfloat16 arithmetic: C = A * B + A over 8x32 bfloat16 matrices, and the row sums of C accumulated in float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 32), "bfloat16"), B: T.Buffer((8, 32), "bfloat16"), C: T.Buffer((8, 32), "bfloat16"), S: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(8, 32):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], B[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = A[v_i, v_j] * B[v_i, v_j] + A[v_i, v_j]
    for i, k in T.grid(8, 32):
        with T.block("S"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(C[v_i, v_k])
            T.writes(S[v_i])
            with T.init():
                S[v_i] = T.float32(0)
            S[v_i] = S[v_i] + T.Cast("float32", C[v_i, v_k])
