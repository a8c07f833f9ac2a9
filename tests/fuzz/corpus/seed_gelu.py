# GELU of a 16x128 float32 matrix, both forms: tanh approximation 0.5x(1 + tanh(0.79788456(x + 0.044715x^3))) and exact 0.5x(1 + erf(x / sqrt 2)).
# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((16, 128), "float32"), Y_tanh: T.Buffer((16, 128), "float32"), Y_erf: T.Buffer((16, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j in T.grid(16, 128):
        with T.block("gelu_tanh"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(X[vi, vj])
            T.writes(Y_tanh[vi, vj])
            Y_tanh[vi, vj] = T.float32(0.5) * X[vi, vj] * (T.float32(1) + T.tanh(T.float32(0.79788456080286541) * (X[vi, vj] + T.float32(0.044714999999999998) * X[vi, vj] * X[vi, vj] * X[vi, vj])))
    for i, j in T.grid(16, 128):
        with T.block("gelu_erf"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(X[vi, vj])
            T.writes(Y_erf[vi, vj])
            Y_erf[vi, vj] = T.float32(0.5) * X[vi, vj] * (T.float32(1) + T.erf(X[vi, vj] * T.float32(0.70710678118654757)))
