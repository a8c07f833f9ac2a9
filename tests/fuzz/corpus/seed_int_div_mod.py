# Integer division and remainder semantics on int32 values in [-8, 8): floor division (//, T.floordiv), floor modulo (%, T.floormod), truncated remainder (T.truncmod), with divisors 3 and -3.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "int32"), Q: T.Buffer((6, 64), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(64):
        with T.block("Q"):
            v_i = T.axis.spatial(64, i)
            T.reads(A[v_i])
            T.writes(Q[0:6, v_i])
            Q[0, v_i] = A[v_i] // 3
            Q[1, v_i] = A[v_i] % 3
            Q[2, v_i] = T.floordiv(A[v_i], -3)
            Q[3, v_i] = T.floormod(A[v_i], -3)
            Q[4, v_i] = T.truncmod(A[v_i], 3)
            Q[5, v_i] = T.min(T.max(A[v_i] * 5 - 7, -20), 20)
