# High-level operators with their shapes inferred (a batched matmul,
# broadcasting), an annotated binding, bindings outside a dataflow block,
# a tuple and its fields, and the course's older spellings: Tensor(...)
# without R., and R.call_tir(f, args, shape, dtype=...) naming f bare.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Ops:
    @T.prim_func
    def double(x: T.Buffer((4, 8), "float32"), y: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = x[vi, vj] * T.float32(2)

    @R.function
    def main(a: R.Tensor((2, 4, 8), "float32"), b: R.Tensor((8, 3), "float32"),
             c: Tensor((4, 8), "float32"), bias: R.Tensor((8,), "float32")):
        with R.dataflow():
            m = R.matmul(a, b)
            r = R.nn.relu(m)
            s: R.Tensor((2, 4, 3), "float32") = R.multiply(m, r)
            R.output(s)
        d = R.call_tir(double, (c,), (4, 8), dtype="float32")
        e = R.add(d, bias)
        f = R.sigmoid(e)
        t = (s, f)
        u = t[0]
        return (u, t[1])
