# Float literal spellings: bare 0.0 / 1.5, exponents (1e-05, 2.5e+10), tiny and huge float32/float64 values, negative constants, integers widened to float; stored into a 12-element float32 and float64 pair.
# from tvm.script import tir as T

@T.prim_func
def main(F: T.Buffer((12,), "float32"), D: T.Buffer((4,), "float64")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    with T.block("consts"):
        T.reads()
        T.writes(F[0:12], D[0:4])
        F[0] = 0.0
        F[1] = 1.5
        F[2] = T.float32(1.0000000000000001e-05)
        F[3] = T.float32(25000000000.0)
        F[4] = T.float32(-3.4028234663852886e+38)
        F[5] = T.float32(1.1754943508222875e-38)
        F[6] = T.float32(-0.125)
        F[7] = T.float32(3)
        F[8] = T.float32(0.10000000149011612)
        F[9] = T.float32(-0.0)
        F[10] = T.float32(123456789)
        F[11] = T.float32(6.0999999999999998e-05)
        D[0] = T.float64(0.10000000000000001)
        D[1] = T.float64(1.7976931348623157e+308)
        D[2] = T.float64(4.9406564584124654e-324)
        D[3] = T.float64(-2.5)
