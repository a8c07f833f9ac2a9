# Weights bound as constants (TVM prints them as metadata references and
# omits the metadata), library functions called by name, one prim_func
# called by name through R.call_dps_packed.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Bound:
    @T.prim_func
    def scale(x: T.Buffer((1, 16), "float32"), s: T.Buffer((16,), "float32"), y: T.Buffer((1, 16), "float32")):
        for i, j in T.grid(1, 16):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = x[vi, vj] * s[vj]

    @R.function
    def main(x: R.Tensor((1, 16), dtype="float32")) -> R.Tensor((1, 4), dtype="float32"):
        with R.dataflow():
            a = R.call_dps_packed("scale", (x, metadata["relax.expr.Constant"][0]), out_sinfo=R.Tensor((1, 16), dtype="float32"))
            b = R.call_dps_packed("env.relu", (a,), out_sinfo=R.Tensor((1, 16), dtype="float32"))
            c = R.call_dps_packed("env.linear", (b, metadata["relax.expr.Constant"][1], metadata["relax.expr.Constant"][2]), out_sinfo=R.Tensor((1, 4), dtype="float32"))
            R.output(c)
        return c
