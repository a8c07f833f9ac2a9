# The operators with attributes (ABI 1.5): astype both ways, gelu, silu,
# permute_dims with and without axes, reshape with R.shape and a tuple with
# -1, flatten, sum / mean / max over axes (keepdims, negative, all),
# softmax along an axis, concat of a tuple.
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Ops2:
    @R.function
    def main(x: R.Tensor((2, 3, 4), "float32"), y: R.Tensor((2, 3, 4), "float32")):
        with R.dataflow():
            a = R.astype(x, "float16")
            b = R.astype(a, dtype="float32")
            g = R.nn.gelu(b)
            s = R.nn.silu(g)
            p = R.permute_dims(s, axes=[2, 0, 1])
            q = R.permute_dims(p)
            r = R.reshape(q, R.shape([6, 4]))
            r2 = R.reshape(r, (3, -1))
            f = R.flatten(r2)
            m = R.sum(x, axis=[1], keepdims=True)
            m2 = R.mean(x, axis=-1)
            m3 = R.max(x)
            sm = R.nn.softmax(x, axis=1)
            c = R.concat((x, y), axis=2)
            R.output(f, m, m2, m3, sm, c)
        return (f, m, m2, m3, sm, c)
