"""ONNX models for tests/onnx/test_onnx.sh, built with Debian's python3-onnx
(onnx.helper) and checked against NumPy: `make_models.py DIR` writes, per
case, DIR/NAME.onnx, DIR/NAME.in.npz (the graph inputs) and DIR/NAME.want.npz
(NumPy's outputs, output.0, output.1, ... as `tessel run --output` names
them), and the models the errors are about. Run by /usr/bin/python3."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "relax"))
from model_refs import conv2d  # noqa: E402 (NCHW / OIHW convolution in float64)

rng = np.random.default_rng(23)


def f(*shape):
    return rng.uniform(-1, 1, shape).astype("float32")


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def init(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def save(d, name, nodes, inputs, outputs, inits, feeds, wants, opset=17):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="tessel-tests")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, f"{d}/{name}.onnx")
    np.savez(f"{d}/{name}.in.npz", **feeds)
    np.savez(f"{d}/{name}.want.npz",
             **{f"output.{i}" if len(wants) > 1 else "output": w.astype("float32")
                for i, w in enumerate(wants)})
    return m


def relu(x):
    return np.maximum(x, 0)


def pool(x, k, s, pad, kind, include_pad=False):
    n, c, h, w = x.shape
    oh, ow = (h + pad[0] + pad[2] - k) // s + 1, (w + pad[1] + pad[3] - k) // s + 1
    fill = -np.inf if kind == "max" else 0
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])),
                constant_values=fill)
    ones = np.pad(np.ones((h, w)), ((pad[0], pad[2]), (pad[1], pad[3])))
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + k, j * s:j * s + k]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = k * k if include_pad else ones[i * s:i * s + k, j * s:j * s + k].sum()
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return out


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def mlp(d):
    x, w0, b0, w1, b1 = f(3, 16), f(32, 16), f(32), f(10, 32), f(10)
    nodes = [helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "fc2.weight", "fc2.bias"], ["y"], transB=1)]
    want = relu(x.astype("float64") @ w0.T + b0) @ w1.T + b1
    save(d, "mlp", nodes, [vi("x", ["batch", 16])], [vi("y", ["batch", 10])],
         [init("fc1.weight", w0), init("fc1.bias", b0), init("fc2.weight", w1),
          init("fc2.bias", b1)], {"x": x}, [want])


def cnn(d):
    x, w1, b1, w2 = f(2, 4, 12, 12), f(8, 4, 3, 3), f(8), f(8, 4, 3, 3)
    gamma, beta, mean = f(8), f(8), f(8)
    var = rng.uniform(0.5, 2, 8).astype("float32")
    fw, fb = f(8, 5), f(5)
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], strides=[2, 2], pads=[1, 1, 1, 1],
                              kernel_shape=[3, 3]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[1, 1],
                              pads=[0, 0, 1, 1]),
             helper.make_node("Conv", ["p1", "w2"], ["c2"], group=2, dilations=[2, 2],
                              auto_pad="SAME_UPPER"),
             helper.make_node("BatchNormalization", ["c2", "gamma", "beta", "mean", "var"], ["bn"],
                              epsilon=1e-3),
             helper.make_node("GlobalAveragePool", ["bn"], ["g"]),
             helper.make_node("Flatten", ["g"], ["fl"]),
             helper.make_node("Gemm", ["fl", "fw", "fb"], ["y"], alpha=0.5, beta=2.0)]
    c1 = relu(conv2d(x, w1, 2, (1, 1, 1, 1), 1, 1) + b1[None, :, None, None])
    p1 = pool(c1, 2, 1, (0, 0, 1, 1), "max")
    c2 = conv2d(p1, w2, 1, (2, 2, 2, 2), 2, 2)
    bn = (c2 - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-3)
    bn = bn * gamma[None, :, None, None] + beta[None, :, None, None]
    y = 0.5 * (bn.mean(axis=(2, 3)) @ fw) + 2.0 * fb
    save(d, "cnn", nodes, [vi("x", [2, 4, 12, 12])], [vi("y", [2, 5])],
         [init("w1", w1), init("b1", b1), init("w2", w2), init("gamma", gamma), init("beta", beta),
          init("mean", mean), init("var", var), init("fw", fw), init("fb", fb)], {"x": x}, [y])


def elementwise(d):
    a, b, s = f(2, 3, 4), f(3, 1), np.array(1.5, "float32")
    nodes = [helper.make_node("Add", ["a", "b"], ["t0"]),
             helper.make_node("Mul", ["t0", "s"], ["t1"]),
             helper.make_node("Sub", ["t1", "a"], ["t2"]),
             helper.make_node("Sigmoid", ["t2"], ["t3"]),
             helper.make_node("Exp", ["t3"], ["t4"]),
             helper.make_node("Sqrt", ["t4"], ["t5"]),
             helper.make_node("Div", ["t5", "t3"], ["t6"]),
             helper.make_node("Tanh", ["t6"], ["t7"]),
             helper.make_node("Cast", ["t7"], ["t8"], to=TensorProto.DOUBLE),
             helper.make_node("Cast", ["t8"], ["y"], to=TensorProto.FLOAT),
             helper.make_node("Identity", ["t2"], ["z"])]
    t2 = (a.astype("float64") + b) * 1.5 - a
    t3 = 1 / (1 + np.exp(-t2))
    y = np.tanh(np.sqrt(np.exp(t3)) / t3)
    save(d, "elementwise", nodes, [vi("a", [2, 3, 4]), vi("b", [3, 1])],
         [vi("y", [2, 3, 4]), vi("z", [2, 3, 4])], [init("s", s)], {"a": a, "b": b}, [y, t2])


def shapes(d):
    x, y = f(2, 3, 4), f(2, 3, 2)
    nodes = [helper.make_node("Constant", [], ["shp"], value=init("shp", np.array([0, -1, 2], "int64"))),
             helper.make_node("Reshape", ["x", "shp"], ["r"]),
             helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0, 2]),
             helper.make_node("Unsqueeze", ["t", "ax0"], ["u"]),
             helper.make_node("Squeeze", ["u", "ax0"], ["q"]),
             helper.make_node("Transpose", ["q"], ["t2"], perm=[1, 0, 2]),
             helper.make_node("Concat", ["t2", "y"], ["c"], axis=1),
             helper.make_node("Dropout", ["c"], ["dr"]),
             helper.make_node("Flatten", ["dr"], ["out"], axis=2)]
    r = x.reshape(2, -1, 2)
    c = np.concatenate([r, y], axis=1)
    save(d, "shapes", nodes, [vi("x", [2, 3, 4]), vi("y", [2, 3, 2])], [vi("out", [18, 2])],
         [init("ax0", np.array([0], "int64"))], {"x": x, "y": y}, [c.reshape(18, 2)])


def reductions(d):
    x, g, b, m = f(2, 3, 8), f(8), f(8), f(8, 6)
    nodes = [helper.make_node("ReduceMean", ["x"], ["rm"], axes=[1], keepdims=0),
             helper.make_node("ReduceSum", ["x", "axes"], ["rs"], keepdims=1),
             helper.make_node("Softmax", ["x"], ["sm"]),
             helper.make_node("LayerNormalization", ["x", "g", "b"], ["ln"], epsilon=1e-5),
             helper.make_node("MatMul", ["ln", "m"], ["mm"]),
             helper.make_node("AveragePool", ["x4"], ["ap"], kernel_shape=[3, 3], strides=[2, 2],
                              pads=[1, 1, 1, 1], count_include_pad=1)]
    x4 = f(1, 2, 7, 7)
    xd = x.astype("float64")
    mu = xd.mean(axis=-1, keepdims=True)
    ln = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(axis=-1, keepdims=True) + 1e-5) * g + b
    save(d, "reductions", nodes, [vi("x", [2, 3, 8]), vi("x4", [1, 2, 7, 7])],
         [vi("rm", [2, 8]), vi("rs", [2, 1, 8]), vi("sm", [2, 3, 8]), vi("mm", [2, 3, 6]),
          vi("ap", [1, 2, 4, 4])],
         [init("axes", np.array([1], "int64")), init("g", g), init("b", b), init("m", m)],
         {"x": x, "x4": x4},
         [xd.mean(axis=1), xd.sum(axis=1, keepdims=True), softmax(xd, -1), ln @ m,
          pool(x4, 3, 2, (1, 1, 1, 1), "avg", include_pad=True)])


def opset11(d):
    """Softmax over the data flattened at its axis; Squeeze / Unsqueeze axes as attributes."""
    x = f(2, 3, 4)
    nodes = [helper.make_node("Softmax", ["x"], ["sm"], axis=1),
             helper.make_node("Unsqueeze", ["sm"], ["u"], axes=[0]),
             helper.make_node("Squeeze", ["u"], ["y"], axes=[0])]
    want = softmax(x.astype("float64").reshape(2, 12), -1).reshape(2, 3, 4)
    save(d, "opset11", nodes, [vi("x", [2, 3, 4])], [vi("y", [2, 3, 4])], [], {"x": x}, [want],
         opset=11)


def slicing(d):
    """Slice with steps, negative and past-the-end bounds; the shape arithmetic exporters write
    (Shape, Gather, Unsqueeze, Concat, Mul) folded at import into a Reshape's shape."""
    x = f(2, 6, 8)
    big = np.iinfo(np.int64).max
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["s"]),
             helper.make_node("Shape", ["x"], ["shp"]),
             helper.make_node("Gather", ["shp", "zero"], ["n"], axis=0),
             helper.make_node("Unsqueeze", ["n", "ax0"], ["n1"]),
             helper.make_node("Mul", ["minus1", "one"], ["m1"]),
             helper.make_node("Concat", ["n1", "m1"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["r"]),
             helper.make_node("Gather", ["x", "last"], ["g"], axis=1)]
    save(d, "slicing", nodes, [vi("x", [2, 6, 8])],
         [vi("s", [2, 3, 2]), vi("r", [2, 48]), vi("g", [2, 8])],
         [init("starts", np.array([1, 0], "int64")), init("ends", np.array([big, -2], "int64")),
          init("axes", np.array([1, 2], "int64")), init("steps", np.array([2, 3], "int64")),
          init("zero", np.array(0, "int64")), init("ax0", np.array([0], "int64")),
          init("minus1", np.array([-1], "int64")), init("one", np.array([1], "int64")),
          init("last", np.array(-1, "int64"))],
         {"x": x}, [x[:, 1::2, 0:-2:3], x.reshape(2, 48), x[:, -1]])


def gelu(d):
    """GELU as exporters write it before operator set 20 (Div, Erf, Add, Mul), and Pow."""
    x = f(3, 16)
    nodes = [helper.make_node("Div", ["x", "sqrt2"], ["t0"]),
             helper.make_node("Erf", ["t0"], ["t1"]),
             helper.make_node("Add", ["t1", "one"], ["t2"]),
             helper.make_node("Mul", ["x", "t2"], ["t3"]),
             helper.make_node("Mul", ["t3", "half"], ["y"]),
             helper.make_node("Pow", ["x", "two"], ["sq"])]
    from math import erf
    xd = x.astype("float64")
    y = xd * 0.5 * (1 + np.vectorize(erf)(xd / np.sqrt(2)))
    save(d, "gelu", nodes, [vi("x", [3, 16])], [vi("y", [3, 16]), vi("sq", [3, 16])],
         [init("sqrt2", np.array(np.sqrt(2), "float32")), init("one", np.array(1, "float32")),
          init("half", np.array(0.5, "float32")), init("two", np.array(2, "float32"))],
         {"x": x}, [y, xd ** 2])


def gather_ops(d):
    """Where under a bool mask, Expand (either side's 1 gives way), Gather at a tensor of
    indices (an embedding, negative indices), Clip with both bounds and with max only."""
    x, e, r = f(3, 4), f(10, 8), f(4)
    m = np.array([[True], [False], [True]])
    ids = np.array([[1, 9, 0], [-1, 4, 4]], "int64")
    nodes = [helper.make_node("Where", ["m", "x", "r"], ["w"]),
             helper.make_node("Expand", ["col", "shape"], ["ex"]),
             helper.make_node("Gather", ["table", "ids"], ["emb"]),
             helper.make_node("Gather", ["x", "cols"], ["g1"], axis=1),
             helper.make_node("Clip", ["x", "lo", "hi"], ["c"]),
             helper.make_node("Clip", ["x", "", "hi"], ["c2"])]
    col = f(3, 1)
    cols = np.array([3, -4, 1], "int64")
    save(d, "gather_ops", nodes,
         [vi("m", [3, 1], TensorProto.BOOL), vi("x", [3, 4]), vi("r", [4]),
          vi("ids", [2, 3], TensorProto.INT64)],
         [vi("w", [3, 4]), vi("ex", [2, 3, 4]), vi("emb", [2, 3, 8]), vi("g1", [3, 3]),
          vi("c", [3, 4]), vi("c2", [3, 4])],
         [init("col", col), init("shape", np.array([2, 1, 4], "int64")), init("table", e),
          init("cols", cols), init("lo", np.array(-0.25, "float32")),
          init("hi", np.array(0.5, "float32"))],
         {"m": m, "x": x, "r": r, "ids": ids},
         [np.where(m, x, r), np.broadcast_to(col, (2, 3, 4)), e[ids], x[:, cols],
          np.clip(x, -0.25, 0.5), np.minimum(x, 0.5)])


def gelu20(d):
    """Gelu of operator set 20, exact and tanh-approximated (python3-onnx 1.12 predates set 20:
    the model is written without its checker)."""
    x = f(3, 16)
    nodes = [helper.make_node("Gelu", ["x"], ["y"]),
             helper.make_node("Gelu", ["x"], ["t"], approximate="tanh")]
    g = helper.make_graph(nodes, "gelu20", [vi("x", [3, 16])], [vi("y", [3, 16]), vi("t", [3, 16])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    onnx.save(m, f"{d}/gelu20.onnx")
    from math import erf
    xd = x.astype("float64")
    y = xd * 0.5 * (1 + np.vectorize(erf)(xd / np.sqrt(2)))
    t = 0.5 * xd * (1 + np.tanh(np.sqrt(2 / np.pi) * (xd + 0.044715 * xd ** 3)))
    np.savez(f"{d}/gelu20.in.npz", x=x)
    np.savez(f"{d}/gelu20.want.npz", **{"output.0": y.astype("float32"),
                                        "output.1": t.astype("float32")})


def dynamic(d):
    """A symbolic batch through the shape arithmetic exporters write: Shape, Gather, Unsqueeze
    and Concat into a Reshape's shape, Shape with start (set 15) and Expand to Shape(x)."""
    x, b = f(3, 4, 6), f(1, 1, 6)
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "zero"], ["n"]),
             helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
             helper.make_node("Concat", ["n1", "minus1"], ["flat_shape"], axis=0),
             helper.make_node("Reshape", ["x", "flat_shape"], ["flat"]),
             helper.make_node("Relu", ["flat"], ["y"]),
             helper.make_node("Shape", ["x"], ["tail"], start=1),
             helper.make_node("Concat", ["n1", "tail"], ["s2"], axis=0),
             helper.make_node("Expand", ["b", "s2"], ["bx"]),
             helper.make_node("Add", ["x", "bx"], ["z"])]
    save(d, "dynamic", nodes, [vi("x", ["batch", 4, 6])],
         [vi("y", ["batch", 24]), vi("z", ["batch", 4, 6])],
         [init("b", b), init("zero", np.array(0, "int64")), init("axes0", np.array([0], "int64")),
          init("minus1", np.array([-1], "int64"))],
         {"x": x}, [relu(x.reshape(3, 24)), x + b])


def split(d):
    """Split at sizes given as an input, and in equal parts; a part used by a later node."""
    x = f(2, 6, 8)
    nodes = [helper.make_node("Split", ["x", "sizes"], ["a", "b"], axis=1),
             helper.make_node("Split", ["x"], ["c", "e"], axis=-1),
             helper.make_node("Relu", ["b"], ["rb"])]
    save(d, "split", nodes, [vi("x", [2, 6, 8])],
         [vi("a", [2, 2, 8]), vi("rb", [2, 4, 8]), vi("c", [2, 6, 4]), vi("e", [2, 6, 4])],
         [init("sizes", np.array([2, 4], "int64"))], {"x": x},
         [x[:, :2], relu(x[:, 2:]), x[:, :, :4], x[:, :, 4:]])


def external(d):
    """The MLP with its weights in a file beside the model (external data)."""
    m = onnx.load(f"{d}/mlp.onnx")
    os.makedirs(f"{d}/ext", exist_ok=True)
    onnx.save_model(m, f"{d}/ext/mlp_ext.onnx", save_as_external_data=True,
                    all_tensors_to_one_file=True, location="mlp_ext.bin", size_threshold=0)


def errors(d):
    x = vi("x", [1, 4])
    y = vi("y", [1, 4])
    save(d, "bad_op", [helper.make_node("Einsum", ["x", "x"], ["y"], name="mix",
                                        equation="ij,ij->ij")],
         [x], [y], [], {}, [np.zeros(1)])
    save(d, "bad_opset", [helper.make_node("Relu", ["x"], ["y"])], [x], [y], [], {},
         [np.zeros(1)], opset=9)
    g = helper.make_graph([helper.make_node("Conv", ["v", "w"], ["o"], name="conv3d")], "bad_rank",
                          [vi("v", [1, 1, 4, 4, 4])], [vi("o", [1, 1, 2, 2, 2])],
                          [init("w", f(1, 1, 3, 3, 3))])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]),
              f"{d}/bad_rank.onnx")
    save(d, "bad_dtype", [helper.make_node("Identity", ["z"], ["o"])],
         [vi("z", [2], TensorProto.COMPLEX64)], [vi("o", [2], TensorProto.COMPLEX64)], [], {},
         [np.zeros(1)])
    save(d, "bad_sizes", [helper.make_node("Shape", ["v"], ["s"]),
                          helper.make_node("Cast", ["s"], ["o"], name="to_float", to=1)],
         [vi("v", ["n", 4])], [vi("o", [2])], [], {}, [np.zeros(1)])
    data = open(f"{d}/cnn.onnx", "rb").read()
    open(f"{d}/truncated.onnx", "wb").write(data[:len(data) // 2])
    open(f"{d}/garbage.onnx", "wb").write(bytes(rng.integers(0, 256, 300, dtype=np.uint8)))


if __name__ == "__main__":
    out = sys.argv[1]
    for case in (mlp, cnn, elementwise, shapes, reductions, opset11, slicing, split, gelu,
                 gather_ops, gelu20, dynamic, external, errors):
        case(out)
