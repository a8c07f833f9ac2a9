# Logistic sigmoid over a 32x64 float32 matrix, written out as 1 / (1 + exp(-x)), next to T.sigmoid for comparison.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), B: T.Buffer((32, 64), "float32"), C: T.Buffer((32, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(32, 64):
        with T.block("sigmoid_explicit"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = T.float32(1) / (T.float32(1) + T.exp(T.float32(0) - A[vi, vj]))
    for i, j in T.grid(32, 64):
        with T.block("sigmoid_intrin"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = T.sigmoid(A[vi, vj])
