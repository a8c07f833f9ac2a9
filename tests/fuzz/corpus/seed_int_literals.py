# Integer and boolean literal extremes of every integer dtype (int8/16/32/64 minimum and maximum, uint8 255, True/False), stored and combined with the inputs.
# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((4,), "int32"), I8: T.Buffer((2,), "int8"), I16: T.Buffer((2,), "int16"), I32: T.Buffer((3,), "int32"), I64: T.Buffer((3,), "int64"), U8: T.Buffer((2,), "uint8"), Bo: T.Buffer((2,), "bool")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    with T.block("literals"):
        T.reads(X[0:4])
        T.writes(I8[0:2], I16[0:2], I32[0:3], I64[0:3], U8[0:2], Bo[0:2])
        I8[0] = T.int8(-128)
        I8[1] = T.int8(127)
        I16[0] = T.int16(-32768)
        I16[1] = T.int16(32767)
        I32[0] = -2147483648
        I32[1] = 2147483647
        I32[2] = X[0] * 1000000 + X[1]
        I64[0] = T.int64(-9223372036854775808)
        I64[1] = T.int64(9223372036854775807)
        I64[2] = T.Cast("int64", X[2]) * T.int64(1099511627776) + T.int64(-1)
        U8[0] = T.uint8(255)
        U8[1] = T.uint8(0)
        Bo[0] = T.bool(False)
        Bo[1] = X[3] != 0 or True
