# The course's two-layer perceptron (784-128-10, batch 1) written with Relax high-level
# operators, its weights parameters: a model to run, pass and tune (configs/mlp_model.yaml).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Mlp:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((784, 128), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((128, 10), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((1, 10), "float32"):
        with R.dataflow():
            lv0 = R.matmul(x, w0)
            lv1 = R.add(lv0, b0)
            lv2 = R.nn.relu(lv1)
            lv3 = R.matmul(lv2, w1)
            out = R.add(lv3, b1)
            R.output(out)
        return out
