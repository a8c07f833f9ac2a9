# Math intrinsics on a 32-element float32 vector: each output row applies one of exp, log, sqrt, tanh, sigmoid, fabs, pow, floor, ceil, round, erf, sin, cos, exp2, log2, rsqrt, atan, trunc.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), R: T.Buffer((18, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(32):
        with T.block("R"):
            v_i = T.axis.spatial(32, i)
            T.reads(A[v_i])
            T.writes(R[0:18, v_i])
            R[0, v_i] = T.exp(A[v_i])
            R[1, v_i] = T.log(T.fabs(A[v_i]) + T.float32(1))
            R[2, v_i] = T.sqrt(T.fabs(A[v_i]))
            R[3, v_i] = T.tanh(A[v_i])
            R[4, v_i] = T.sigmoid(A[v_i])
            R[5, v_i] = T.fabs(A[v_i])
            R[6, v_i] = T.pow(T.fabs(A[v_i]), T.float32(1.5))
            R[7, v_i] = T.floor(A[v_i] * T.float32(4))
            R[8, v_i] = T.ceil(A[v_i] * T.float32(4))
            R[9, v_i] = T.round(A[v_i] * T.float32(4))
            R[10, v_i] = T.erf(A[v_i])
            R[11, v_i] = T.sin(A[v_i])
            R[12, v_i] = T.cos(A[v_i])
            R[13, v_i] = T.exp2(A[v_i])
            R[14, v_i] = T.log2(T.fabs(A[v_i]) + T.float32(1))
            R[15, v_i] = T.rsqrt(T.fabs(A[v_i]) + T.float32(1))
            R[16, v_i] = T.atan(A[v_i])
            R[17, v_i] = T.trunc(A[v_i] * T.float32(4))
