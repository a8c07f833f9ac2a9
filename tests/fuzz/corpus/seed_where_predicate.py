# T.where predicates from imperfect splits: 100-element vector scaled by 3, loop split 7 x 16 with i_0 * 16 + i_1 < 100; and a 2-D split with a compound predicate.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32"), P: T.Buffer((10, 10), "float32"), Q: T.Buffer((10, 10), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, i_1 in T.grid(7, 16):
        with T.block("B"):
            v_i = T.axis.spatial(100, i_0 * 16 + i_1)
            T.where(i_0 * 16 + i_1 < 100)
            T.reads(A[v_i])
            T.writes(B[v_i])
            B[v_i] = A[v_i] * T.float32(3)
    for i_0, i_1, j_0, j_1 in T.grid(3, 4, 4, 3):
        with T.block("Q"):
            v_i = T.axis.spatial(10, i_0 * 4 + i_1)
            v_j = T.axis.spatial(10, j_0 * 3 + j_1)
            T.where(i_0 * 4 + i_1 < 10 and j_0 * 3 + j_1 < 10)
            T.reads(P[v_i, v_j])
            T.writes(Q[v_i, v_j])
            Q[v_i, v_j] = P[v_i, v_j] - T.float32(1)
