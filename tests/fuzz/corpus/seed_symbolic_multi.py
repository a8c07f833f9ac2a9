# Two symbolic dimensions declared together (m, n = T.int64(), T.int64()): column sums of an m x n float32 matrix and its transpose.
# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, s: T.handle, t: T.handle):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    m, n = T.int64(), T.int64()
    A = T.match_buffer(a, (m, n))
    S = T.match_buffer(s, (n,))
    At = T.match_buffer(t, (n, m))
    # with T.block("root"):
    for j, i in T.grid(n, m):
        with T.block("S"):
            v_j, v_i = T.axis.remap("SR", [j, i])
            T.reads(A[v_i, v_j])
            T.writes(S[v_j])
            with T.init():
                S[v_j] = T.float32(0)
            S[v_j] = S[v_j] + A[v_i, v_j]
    for j, i in T.grid(n, m):
        with T.block("At"):
            v_j, v_i = T.axis.remap("SS", [j, i])
            T.reads(A[v_i, v_j])
            T.writes(At[v_j, v_i])
            At[v_j, v_i] = A[v_i, v_j]
