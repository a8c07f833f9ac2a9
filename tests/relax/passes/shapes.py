# What legalize writes for each operator and shape: broadcasting (a
# dimension of 1, a lower rank), NumPy vector matmul, batched matmul with a
# broadcast batch, symbolic sizes, integer dtypes, the unary operators; and
# equal prim_funcs made once (two adds of the same shapes), others named
# add1, ...
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Shapes:
    @R.function
    def main(a: R.Tensor((2, 1, 3), "float32"), b: R.Tensor((4, 3), "float32"),
             v: R.Tensor((3,), "float32"), m: R.Tensor((5, 3, 2), "float32"),
             q: R.Tensor((1, 2, 3), "float32"), i: R.Tensor((4,), "int32"),
             x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        with R.dataflow():
            s = R.add(a, b)
            s2 = R.add(a, b)
            d = R.divide(s, s2)
            mv = R.matmul(b, v)
            vm = R.matmul(v, m)
            bm = R.matmul(q, m)
            t = R.tanh(d)
            e = R.exp(t)
            r = R.sqrt(e)
            g = R.sigmoid(r)
            ii = R.subtract(i, i)
            iq = R.divide(ii, i)
            xs = R.multiply(x, v)
            xr = R.nn.relu(xs)
            R.output(g, mv, vm, bm, iq, xr)
        return (g, mv, vm, bm, iq, xr)
