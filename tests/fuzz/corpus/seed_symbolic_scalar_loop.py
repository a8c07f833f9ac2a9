# A symbolic int32 length passed as a scalar parameter and used for a handle buffer's shape: B[i] = A[i] * 2 + i for i < n, n bound at run time.
# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    # with T.block("root"):
    for i in range(n):
        with T.block("B"):
            v_i = T.axis.spatial(n, i)
            T.reads(A[v_i])
            T.writes(B[v_i])
            B[v_i] = A[v_i] * T.float32(2) + T.Cast("float32", v_i)
