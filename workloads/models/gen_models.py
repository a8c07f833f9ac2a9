#!/usr/bin/env python3
"""Write the benchmark models of `./tessel bench model` as Relax TVMScript:

  resnet18.py      a ResNet-18-shaped CNN at batch 1, 224x224, NCHW: the stem
                   (7x7/2 conv, 3x3/2 max pool), four stages of two basic
                   blocks (64, 128, 256, 512 channels; 1x1/2 downsampling
                   convs), global average pooling and a 1000-way dense layer.
                   Batch norm is folded into each conv's weight and bias, as
                   inference deployments do, so every conv is conv + bias
                   (+ residual) + ReLU, which FuseOps fuses.
  transformer.py   one transformer encoder block (PyTorch's
                   TransformerEncoderLayer, post-norm, ReLU): sequence 128,
                   hidden 256, 4 heads of 64, feed-forward 1024.

Weights are parameters by name (bench/model/torch_ref.py makes them and the
PyTorch reference from the same names). Standard library only.

usage: gen_models.py DIR"""
import sys


def resnet18():
    params, body = [], []

    def param(name, shape):
        params.append('%s: R.Tensor((%s), dtype="float32")' % (
            name, ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")))

    state = {"n": 0}

    def fresh(prefix):
        state["n"] += 1
        return "%s%d" % (prefix, state["n"])

    def conv(x, name, cin, cout, k, stride, pad, relu=True, residual=None):
        param(name + "_w", (cout, cin, k, k))
        param(name + "_b", (1, cout, 1, 1))
        c = fresh("c")
        body.append("%s = R.nn.conv2d(%s, %s_w, strides=[%d, %d], padding=[%d, %d, %d, %d])" % (
            c, x, name, stride, stride, pad, pad, pad, pad))
        a = fresh("a")
        body.append("%s = R.add(%s, %s_b)" % (a, c, name))
        if residual:
            r = fresh("s")
            body.append("%s = R.add(%s, %s)" % (r, a, residual))
            a = r
        if not relu:
            return a
        y = fresh("r")
        body.append("%s = R.nn.relu(%s)" % (y, a))
        return y

    params.append('x: R.Tensor((1, 3, 224, 224), dtype="float32")')
    h = conv("x", "conv1", 3, 64, 7, 2, 3)
    p = fresh("p")
    body.append("%s = R.nn.max_pool2d(%s, pool_size=[3, 3], strides=[2, 2], "
                "padding=[1, 1, 1, 1])" % (p, h))
    h, cin = p, 64
    for stage, cout in enumerate((64, 128, 256, 512), start=1):
        for blk in range(2):
            stride = 2 if stage > 1 and blk == 0 else 1
            name = "layer%d_%d" % (stage, blk)
            y = conv(h, name + "_conv1", cin, cout, 3, stride, 1)
            short = h
            if stride != 1 or cin != cout:
                short = conv(h, name + "_down", cin, cout, 1, stride, 0, relu=False)
            h = conv(y, name + "_conv2", cout, cout, 3, 1, 1, residual=short)
            cin = cout
    g = fresh("g")
    body.append("%s = R.nn.adaptive_avg_pool2d(%s, output_size=[1, 1])" % (g, h))
    f = fresh("f")
    body.append("%s = R.reshape(%s, R.shape([1, 512]))" % (f, g))
    param("fc_w", (512, 1000))
    param("fc_b", (1000,))
    m = fresh("m")
    body.append("%s = R.matmul(%s, fc_w)" % (m, f))
    body.append("out = R.add(%s, fc_b)" % m)
    return module("ResNet18", "a ResNet-18-shaped CNN, batch 1, 224x224, batch norm folded",
                  params, body, '(1, 1000)')


def transformer():
    s, d, h, hd, ff = 128, 256, 4, 64, 1024
    params = ['x: R.Tensor((%d, %d), dtype="float32")' % (s, d)]
    for n, shape in (("wq", (d, d)), ("bq", (d,)), ("wk", (d, d)), ("bk", (d,)),
                     ("wv", (d, d)), ("bv", (d,)), ("wo", (d, d)), ("bo", (d,)),
                     ("ln1_g", (d,)), ("ln1_b", (d,)), ("w1", (d, ff)), ("b1", (ff,)),
                     ("w2", (ff, d)), ("b2", (d,)), ("ln2_g", (d,)), ("ln2_b", (d,)),
                     ("scale", (1,))):
        params.append('%s: R.Tensor((%s), dtype="float32")' % (
            n, ", ".join(str(v) for v in shape) + ("," if len(shape) == 1 else "")))
    body = [
        "q = R.add(R.matmul(x, wq), bq)",
        "k = R.add(R.matmul(x, wk), bk)",
        "v = R.add(R.matmul(x, wv), bv)",
        "qh = R.permute_dims(R.reshape(q, R.shape([%d, %d, %d])), axes=[1, 0, 2])" % (s, h, hd),
        "kh = R.permute_dims(R.reshape(k, R.shape([%d, %d, %d])), axes=[1, 2, 0])" % (s, h, hd),
        "vh = R.permute_dims(R.reshape(v, R.shape([%d, %d, %d])), axes=[1, 0, 2])" % (s, h, hd),
        "sc = R.multiply(R.matmul(qh, kh), scale)",
        "pr = R.nn.softmax(sc, axis=-1)",
        "o = R.matmul(pr, vh)",
        "oc = R.reshape(R.permute_dims(o, axes=[1, 0, 2]), R.shape([%d, %d]))" % (s, d),
        "at = R.add(R.matmul(oc, wo), bo)",
        "h1 = R.nn.layer_norm(R.add(x, at), ln1_g, ln1_b, axes=[-1], epsilon=1.0000000000000001e-05)",
        "f1 = R.nn.relu(R.add(R.matmul(h1, w1), b1))",
        "f2 = R.add(R.matmul(f1, w2), b2)",
        "out = R.nn.layer_norm(R.add(h1, f2), ln2_g, ln2_b, axes=[-1], epsilon=1.0000000000000001e-05)",
    ]
    return module("Transformer", "one transformer encoder block: sequence 128, hidden 256, 4 heads, "
                  "feed-forward 1024, post-norm, ReLU", params, body, "(%d, %d)" % (s, d))


def module(name, what, params, body, out_shape):
    lines = ["# %s (written by workloads/models/gen_models.py)." % (what[0].upper() + what[1:]),
             "# from tvm.script import ir as I", "# from tvm.script import relax as R", "",
             "@I.ir_module", "class %s:" % name, "    @R.function",
             "    def main(%s) -> R.Tensor(%s, dtype=\"float32\"):" % (
                 (",\n             ".join(params)), out_shape),
             "        with R.dataflow():"]
    lines += ["            " + b for b in body]
    lines += ["            R.output(out)", "        return out", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    out = sys.argv[1]
    with open(out + "/resnet18.py", "w") as f:
        f.write(resnet18())
    with open(out + "/transformer.py", "w") as f:
        f.write(transformer())
