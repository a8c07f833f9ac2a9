# Operator precedence and parenthesization: subtraction/division chains, unary minus, mixed // and %, nested min/max, comparisons inside and/or (16 int32 and float32 elements).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), I: T.Buffer((16,), "int32"), F: T.Buffer((4, 16), "float32"), G: T.Buffer((3, 16), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(16):
        with T.block("F"):
            v_i = T.axis.spatial(16, i)
            T.reads(A[v_i], I[v_i])
            T.writes(F[0:4, v_i])
            F[0, v_i] = A[v_i] - (A[v_i] - T.float32(1)) - A[v_i] * (A[v_i] + T.float32(2))
            F[1, v_i] = A[v_i] / (T.float32(2) / (A[v_i] * A[v_i] + T.float32(1)))
            F[2, v_i] = -A[v_i] * -(A[v_i] + T.float32(3))
            F[3, v_i] = T.max(T.min(A[v_i], T.float32(0.5)), -T.float32(0.5)) + T.Cast("float32", I[v_i] * (I[v_i] - 1))
    for i in range(16):
        with T.block("G"):
            v_i = T.axis.spatial(16, i)
            T.reads(I[v_i])
            T.writes(G[0:3, v_i])
            G[0, v_i] = (I[v_i] + 7) // 4 * 4 - I[v_i] % 4
            G[1, v_i] = I[v_i] - (v_i - (I[v_i] - 2)) * 3
            G[2, v_i] = T.Select((I[v_i] < 0 or I[v_i] > 4) and not I[v_i] == 6, 1, 0)
