# Boolean masks: M = (A > 0) and not (B > 0.5); C = M ? A : B; count of true entries in an int32 scalar buffer (32x32 float32 inputs).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), M: T.Buffer((32, 32), "bool"), C: T.Buffer((32, 32), "float32"), count: T.Buffer((1,), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(32, 32):
        with T.block("M"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], B[v_i, v_j])
            T.writes(M[v_i, v_j])
            M[v_i, v_j] = A[v_i, v_j] > T.float32(0) and not B[v_i, v_j] > T.float32(0.5)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(M[v_i, v_j], A[v_i, v_j], B[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = T.Select(M[v_i, v_j], A[v_i, v_j], B[v_i, v_j])
    for i, j in T.grid(32, 32):
        with T.block("count"):
            v_i, v_j = T.axis.remap("RR", [i, j])
            T.reads(M[v_i, v_j])
            T.writes(count[0])
            with T.init():
                count[0] = 0
            count[0] = count[0] + T.Cast("int32", M[v_i, v_j])
