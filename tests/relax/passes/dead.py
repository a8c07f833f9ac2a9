# Unused values: a dataflow chain nobody reads (removed), a prim_func no
# longer called (removed), a binding outside a dataflow block (kept: it may
# have effects, as in TVM).
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Dead:
    @T.prim_func
    def double(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("Y"):
                vi = T.axis.remap("S", [i])
                y[vi] = x[vi] * T.float32(2)

    @T.prim_func
    def unused(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.block("Y"):
                vi = T.axis.remap("S", [i])
                y[vi] = x[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        cls = Dead
        with R.dataflow():
            a = R.call_tir(cls.double, (x,), out_sinfo=R.Tensor((4,), "float32"))
            b = R.exp(a)
            c = R.sqrt(b)
            d = R.add(x, y)
            R.output(d)
        kept = R.multiply(d, d)
        return d
