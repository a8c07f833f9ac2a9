# R.strided_slice (1.7): steps, a negative end, an end past the size (clamped), an axis
# counted from the end, and a slice of nothing but one axis.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Slices:
    @R.function
    def main(x: R.Tensor((2, 6, 8), dtype="float32")):
        with R.dataflow():
            a = R.strided_slice(x, axes=[1, 2], begin=[1, 0], end=[100, -2], strides=[2, 3])
            b = R.strided_slice(x, axes=[-1], begin=[-3], end=[8])
            c = R.nn.relu(R.strided_slice(x, axes=[0], begin=[1], end=[2], strides=[1]))
            out = (a, b, c)
            R.output(out)
        return out
