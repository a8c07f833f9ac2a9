# The network operators (relax.h 1.6) in one model: convolutions (strided, padded; grouped and
# dilated), batch_norm with moving statistics, max pooling with ceil_mode, average pooling with
# and without the padding counted, adaptive average pooling to a size that does not divide,
# layer_norm over the last axis, split into sections and at indices.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class NnOps:
    @R.function
    def main(x: R.Tensor((2, 4, 11, 11), dtype="float32"), w: R.Tensor((6, 4, 3, 3), dtype="float32"),
             wg: R.Tensor((6, 2, 3, 3), dtype="float32"), gamma: R.Tensor((6,), dtype="float32"),
             beta: R.Tensor((6,), dtype="float32"), mean: R.Tensor((6,), dtype="float32"),
             var: R.Tensor((6,), dtype="float32"), lg: R.Tensor((3,), dtype="float32"),
             lb: R.Tensor((3,), dtype="float32")):
        with R.dataflow():
            c = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])
            bn = R.nn.batch_norm(c, gamma, beta, mean, var, axis=1, epsilon=1.0000000000000001e-05)
            r = R.nn.relu(bn[0])
            g = R.nn.conv2d(r, wg, padding=[2, 2], dilation=[2, 2], groups=3)
            p = R.nn.max_pool2d(g, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)
            q = R.nn.avg_pool2d(g, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])
            qc = R.nn.avg_pool2d(g, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], count_include_pad=True)
            a = R.nn.adaptive_avg_pool2d(g, output_size=[3, 3])
            ln = R.nn.layer_norm(a, lg, lb, axes=[-1], epsilon=1.0000000000000001e-05)
            s = R.split(ln, indices_or_sections=3, axis=1)
            t = R.split(q, indices_or_sections=[1, 4], axis=1)
            out = (p, q, qc, s[0], s[2], t[1], bn[1])
            R.output(out)
        return out
