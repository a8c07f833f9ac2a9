# One buffer of every scalar dtype and casts between them: each output element mixes the int32 input converted through all the other dtypes.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), F16: T.Buffer((16,), "float16"), F32: T.Buffer((16,), "float32"), F64: T.Buffer((16,), "float64"), BF16: T.Buffer((16,), "bfloat16"), I8: T.Buffer((16,), "int8"), I16: T.Buffer((16,), "int16"), I64: T.Buffer((16,), "int64"), U8: T.Buffer((16,), "uint8"), M: T.Buffer((16,), "bool")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(16):
        with T.block("convert"):
            v_i = T.axis.spatial(16, i)
            T.reads(A[v_i])
            T.writes(F16[v_i], F32[v_i], F64[v_i], BF16[v_i], I8[v_i], I16[v_i], I64[v_i], U8[v_i], M[v_i])
            F16[v_i] = T.Cast("float16", A[v_i]) * T.float16(0.5)
            F32[v_i] = T.Cast("float32", A[v_i]) + T.float32(0.25)
            F64[v_i] = T.Cast("float64", A[v_i]) / T.float64(3)
            BF16[v_i] = T.Cast("bfloat16", A[v_i]) + T.bfloat16(1)
            I8[v_i] = T.Cast("int8", A[v_i] * 17)
            I16[v_i] = T.Cast("int16", A[v_i]) * T.int16(300)
            I64[v_i] = T.Cast("int64", A[v_i]) * T.int64(4294967296)
            U8[v_i] = T.Cast("uint8", A[v_i] + 8) + T.uint8(200)
            M[v_i] = A[v_i] > 0
