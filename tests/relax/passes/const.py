# Scalar constants written in place, R.const(value, dtype): legalized as 0-d buffers, fused into one
# kernel with the operators around them (TVM keeps them as arguments of the fused function too).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Const:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            a = R.multiply(x, R.const(0.5, "float32"))
            b = R.add(a, R.const(2.0, "float32"))
            c = R.nn.relu(R.subtract(b, R.const(1, "float32")))
            R.output(c)
        return c
