# the same matmul in TVM's older spelling, other variable names, inferred regions
import tvm
from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(X: T.Buffer[(32, 32), "float32"], Y: T.Buffer[(32, 32), "float32"], Z: T.Buffer[(32, 32), "float32"]) -> None:
        T.func_attr({"global_symbol": "mm", "tir.noalias": True})
        with T.block("root"):
            for a in T.serial(32):
                for b in T.serial(32):
                    for c in T.serial(32):
                        with T.block("C"):
                            p, q, r = T.axis.remap("SSR", [a, b, c])
                            with T.init():
                                Z[p, q] = 0.0
                            Z[p, q] += X[p, r] * Y[r, q]
