# Matrix multiplication with a symbolic row count: C[m, 64] = A[m, 64] @ B[64, 64], float32, m bound at run time.
# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, b: T.handle, c: T.handle):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    m = T.int64()
    A = T.match_buffer(a, (m, T.int64(64)))
    B = T.match_buffer(b, (T.int64(64), T.int64(64)))
    C = T.match_buffer(c, (m, T.int64(64)))
    # with T.block("root"):
    for i, j, k in T.grid(m, T.int64(64), T.int64(64)):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]
