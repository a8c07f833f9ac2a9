# A two-layer perceptron over a symbolic batch n: the layers are prim_funcs
# called in destination-passing style, the weights are parameters.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Mlp:
    @T.prim_func
    def dense(x: T.handle, w: T.handle, b: T.handle, y: T.handle):
        n, i, o = T.int64(), T.int64(), T.int64()
        X = T.match_buffer(x, (n, i))
        W = T.match_buffer(w, (o, i))
        B = T.match_buffer(b, (o,))
        Y = T.match_buffer(y, (n, o))
        for r, c, i in T.grid(n, o, i):  # the loop's i shadows the size i, as Python scopes do
            with T.block("Y"):
                vr, vc, vk = T.axis.remap("SSR", [r, c, i])
                with T.init():
                    Y[vr, vc] = B[vc]
                Y[vr, vc] = Y[vr, vc] + X[vr, vk] * W[vc, vk]

    @T.prim_func
    def relu(x: T.handle, y: T.handle):
        n, c = T.int64(), T.int64()
        X = T.match_buffer(x, (n, c))
        Y = T.match_buffer(y, (n, c))
        for i, j in T.grid(n, c):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0))

    @R.function
    def main(x: R.Tensor(("n", 64), "float32"), w0: R.Tensor((32, 64), "float32"),
             b0: R.Tensor((32,), "float32"), w1: R.Tensor((10, 32), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor(("n", 10), "float32"):
        cls = Mlp
        n = T.int64()
        with R.dataflow():
            h = R.call_tir(cls.dense, (x, w0, b0), out_sinfo=R.Tensor((n, 32), "float32"))
            a = R.call_tir(cls.relu, (h,), out_sinfo=R.Tensor((n, 32), "float32"))
            y = R.call_tir(cls.dense, (a, w1, b1), out_sinfo=R.Tensor((n, 10), "float32"))
            R.output(y)
        return y
