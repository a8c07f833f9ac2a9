# Two dataflow blocks for convert_layout: the second reads the first's output, which is in NCHW
# again outside its block (an NHWC copy is a dataflow variable of the block that made it).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class TwoBlocks:
    @R.function
    def main(x: R.Tensor((1, 4, 6, 6), dtype="float32"), w: R.Tensor((4, 4, 3, 3), dtype="float32")) -> R.Tensor((1, 4, 3, 3), dtype="float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, padding=[1, 1])
            r = R.nn.relu(c)
            R.output(r)
        with R.dataflow():
            s = R.add(r, x)
            t = R.nn.max_pool2d(s, pool_size=[2, 2], strides=[2, 2])
            R.output(t)
        return t
