# A small CNN as a ResNet stem and head write it: conv2d + bias + relu (TVM fuses the three:
# a reduction whose consumers are elementwise is output-fusible), max pooling, global average
# pooling, a reshape to [1, 8], a dense layer.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Cnn:
    @R.function
    def main(x: R.Tensor((1, 3, 16, 16), dtype="float32"), w: R.Tensor((8, 3, 3, 3), dtype="float32"),
             b: R.Tensor((1, 8, 1, 1), dtype="float32"), fw: R.Tensor((8, 10), dtype="float32"),
             fb: R.Tensor((10,), dtype="float32")) -> R.Tensor((1, 10), dtype="float32"):
        with R.dataflow():
            c = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])
            r = R.nn.relu(R.add(c, b))
            p = R.nn.max_pool2d(r, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
            a = R.nn.adaptive_avg_pool2d(p, output_size=[1, 1])
            f = R.reshape(a, R.shape([1, 8]))
            out = R.add(R.matmul(f, fw), fb)
            R.output(out)
        return out
