# A file as users write it, with real import lines (not comments) before an @I.ir_module; computes B = A - mean(A) over 32 float32 elements.
import tvm
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        s = T.alloc_buffer((1,))
        for k in range(32):
            with T.block("sum"):
                v_k = T.axis.reduce(32, k)
                T.reads(A[v_k])
                T.writes(s[0])
                with T.init():
                    s[0] = T.float32(0)
                s[0] = s[0] + A[v_k]
        for i in range(32):
            with T.block("B"):
                v_i = T.axis.spatial(32, i)
                T.reads(A[v_i], s[0])
                T.writes(B[v_i])
                B[v_i] = A[v_i] - s[0] * T.float32(0.03125)
