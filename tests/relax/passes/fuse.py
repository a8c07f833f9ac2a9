# What fuse groups, by TVM's operator patterns: an element-wise producer
# into a reduction (exp into a row sum written as a prim_func), a value
# that is also a block output (the fused function returns it too), a
# library call that fuses with nothing, and a reduction that fuses forward
# with nothing.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Fuse:
    @T.prim_func
    def rowsum(x: T.Buffer((4, 8), "float32"), y: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 8):
            with T.block("sum"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    y[vi] = T.float32(0)
                y[vi] = y[vi] + x[vi, vk]

    @R.function
    def main(x: R.Tensor((4, 8), "float32"), y: R.Tensor((4, 8), "float32")):
        cls = Fuse
        with R.dataflow():
            e = R.exp(x)
            s = R.call_tir(cls.rowsum, (e,), out_sinfo=R.Tensor((4,), "float32"))
            r = R.nn.relu(s)
            t = R.multiply(x, y)
            a = R.exp(t)
            b = R.nn.relu(t)
            c = R.add(a, b)
            p = R.call_dps_packed("env.add", (c, c), out_sinfo=R.Tensor((4, 8), "float32"))
            q = R.sigmoid(p)
            R.output(r, a, c, q)
        return (r, a, c, q)
