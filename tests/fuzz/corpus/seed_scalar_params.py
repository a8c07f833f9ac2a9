# Scalar parameters: B[i] = alpha * A[i] + beta for i < n, B[i] = 0 elsewhere (64 float32 elements, n an int32 scalar).
# from tvm.script import tir as T

@T.prim_func
def axpb(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), alpha: T.float32, beta: T.float32, n: T.int32):
    T.func_attr({"global_symbol": "axpb", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(64):
        with T.block("B"):
            v_i = T.axis.spatial(64, i)
            T.reads(A[v_i])
            T.writes(B[v_i])
            B[v_i] = T.Select(v_i < n, alpha * A[v_i] + beta, T.float32(0))
