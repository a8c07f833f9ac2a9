# torch.nn.Linear as the course writes it in Relax (x w^T + b) with GELU, a
# softmax head and a reshape: once the weights are bound, fold_constant
# transposes w ahead of time, and fuse joins the matmul with its epilogue.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Linear:
    @R.function
    def main(x: R.Tensor((4, 16), "float32"), w: R.Tensor((8, 16), "float32"),
             b: R.Tensor((8,), "float32")):
        with R.dataflow():
            wt = R.permute_dims(w)
            y = R.matmul(x, wt)
            z = R.add(y, b)
            g = R.nn.gelu(z)
            p = R.nn.softmax(g, axis=-1)
            r = R.reshape(p, R.shape([2, 16]))
            s = R.sum(r, axis=[1])
            R.output(s)
        return s
