#  1) written with Relax(high-level
# operatorR


@I.ir_module
class Mlp:
    @R.function
    def main(x: R.Tensor((1, 7*4), "float32"), w0: R.Tensor((784, 128), "float32"),
            b0: R.Tensor((128,), "float32"), w1: R.Tensor((128, 10), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((1, 10), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv0)
            lv3 = R.matmul(lv2, w1)
            out = R.add(lv3, b1)
            R.output(out)
        return out
