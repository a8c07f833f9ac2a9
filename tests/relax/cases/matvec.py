# R.matmul with vectors, as NumPy reads them: [m, k] x [k], [k] x [k, n],
# [k] x [k] (a scalar), and a batch of matrices times a vector.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class MatVec:
    @R.function
    def main(a: R.Tensor((4, 8), "float32"), x: R.Tensor((8,), "float32"),
             b: R.Tensor((8, 3), "float32"), c: R.Tensor((2, 4, 8), "float32")):
        with R.dataflow():
            v = R.matmul(a, x)
            w = R.matmul(x, b)
            s = R.matmul(x, x)
            u = R.matmul(c, x)
            R.output(v, w, s, u)
        return (v, w, s, u)
