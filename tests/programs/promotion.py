# TVM's implicit promotion: Python literals take the FFI's dtype (int32,
# float32), mismatched operands are matched as TVM's BinaryOpMatchTypes does
# (int -> float, narrow -> wide, float16 -> float32), and a store casts its
# value to the buffer's dtype. The printed form spells every cast out.
from tvm.script import tir as T


@T.prim_func
def main(I: T.Buffer((16,), "int8"), U: T.Buffer((16,), "uint8"), H: T.Buffer((16,), "float16"),
         D: T.Buffer((16,), "float64"), F: T.Buffer((16,), "float32"), L: T.Buffer((16,), "int64")):
    for i in range(16):
        with T.block("promote"):
            v = T.axis.spatial(16, i)
            F[v] = v * 2 + 0.5
            D[v] = v * 0.25 + D[v]
            I[v] = I[v] * 3 // 2
            U[v] = (U[v] - 1) % 16
            H[v] = H[v] * 0.5 + 1
            L[v] = L[v] + v * 2
            F[v] = T.if_then_else(v < 8, 1, 0.5, dtype="float32") + v // 4
            F[v] = T.max(F[v], 0) + T.exp(H[v], dtype="float16")
