# A residual block (ResNet's basic block, batch norm folded) for convert_layout: two 3x3
# convolutions with biases, the input added back, a strided 1x1 shortcut, pooled to a vector.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Residual:
    @R.function
    def main(x: R.Tensor((1, 8, 10, 10), dtype="float32"), w1: R.Tensor((8, 8, 3, 3), dtype="float32"),
             b1: R.Tensor((1, 8, 1, 1), dtype="float32"), w2: R.Tensor((8, 8, 3, 3), dtype="float32"),
             b2: R.Tensor((1, 8, 1, 1), dtype="float32"), wd: R.Tensor((16, 8, 1, 1), dtype="float32"),
             s: R.Tensor((), dtype="float32")) -> R.Tensor((1, 16), dtype="float32"):
        with R.dataflow():
            c1 = R.nn.conv2d(x, w1, padding=[1, 1, 1, 1])
            r1 = R.nn.relu(R.add(c1, b1))
            c2 = R.nn.conv2d(r1, w2, padding=[1, 1, 1, 1])
            a2 = R.add(c2, b2)
            r2 = R.nn.relu(R.add(a2, x))
            m = R.multiply(r2, s)
            d = R.nn.conv2d(m, wd, strides=[2, 2])
            p = R.nn.adaptive_avg_pool2d(d, output_size=[1, 1])
            out = R.reshape(p, R.shape([1, 16]))
            R.output(out)
        return out
