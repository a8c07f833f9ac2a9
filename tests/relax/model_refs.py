"""Inputs and NumPy reference outputs of the models in tests/relax/cases,
for test_run_model.sh: `model_refs.py make DIR` writes DIR/NAME.npz (the
weights and inputs) and DIR/NAME.want.npz (what the model must return);
`model_refs.py compare GOT.npz WANT.npz` exits 0 when every output agrees
within float32 rounding. Run by Debian's /usr/bin/python3 (python3-numpy)."""
import sys

import numpy as np


def relu(x):
    return np.maximum(x, 0)


def make(d):
    rng = np.random.default_rng(7)
    f = lambda *s: rng.uniform(-1, 1, s).astype("float32")
    # mlp: two dense layers over a batch of 3
    x, w0, b0, w1, b1 = f(3, 64), f(32, 64), f(32), f(10, 32), f(10)
    np.savez(f"{d}/mlp.npz", x=x, w0=w0, b0=b0, w1=w1, b1=b1)
    h = relu(x.astype("float64") @ w0.T + b0)
    np.savez(f"{d}/mlp.want.npz", output=(h @ w1.T + b1).astype("float32"))
    # bound_weights: x * s, env.relu, env.linear with weights 1 and 2
    x, s, w, b = f(1, 16), f(16), f(4, 16), f(4)
    np.savez(f"{d}/bound_weights.npz", x=x, **{"relax.expr.Constant.0": s,
             "relax.expr.Constant.1": w, "relax.expr.Constant.2": b})
    a = relu((x * s).astype("float64"))
    np.savez(f"{d}/bound_weights.want.npz", output=(a @ w.T + b).astype("float32"))
    # operators
    a, b, c, bias = f(2, 4, 8), f(8, 3), f(4, 8), f(8)
    np.savez(f"{d}/operators.npz", a=a, b=b, c=c, bias=bias)
    m = a.astype("float64") @ b
    s = m * relu(m)
    e = c.astype("float64") * 2 + bias
    np.savez(f"{d}/operators.want.npz", **{"output.0": s.astype("float32"),
             "output.1": (1 / (1 + np.exp(-e))).astype("float32")})


def make_matvec(d):
    rng = np.random.default_rng(11)
    f = lambda *s: rng.uniform(-1, 1, s).astype("float32")
    a, x, b, c = f(4, 8), f(8), f(8, 3), f(2, 4, 8)
    np.savez(f"{d}/matvec.npz", a=a, x=x, b=b, c=c)
    x64 = x.astype("float64")
    np.savez(f"{d}/matvec.want.npz", **{"output.0": (a @ x64).astype("float32"),
             "output.1": (x64 @ b).astype("float32"), "output.2": np.float32(x64 @ x64),
             "output.3": (c @ x64).astype("float32")})


def make_int(d):
    a = np.array([2**30, -7, 123456, 5], "int32")
    b = np.array([4, 3, -1000, 2], "int32")
    np.savez(f"{d}/int_ops.npz", a=a, b=b)
    with np.errstate(over="ignore"):
        dd = a * b + a - b
    q = np.trunc(dd.astype("float64") / b).astype("int64").astype("int32")
    np.savez(f"{d}/int_ops.want.npz", output=q)


def make_shape_ops(d):
    import math
    rng = np.random.default_rng(13)
    f = lambda *s: rng.uniform(-1, 1, s).astype("float32")
    x, y = f(2, 3, 4), f(2, 3, 4)
    np.savez(f"{d}/shape_ops.npz", x=x, y=y)
    b = x.astype("float16").astype("float32").astype("float64")
    erf = np.vectorize(math.erf)
    g = 0.5 * b * (1 + erf(b / math.sqrt(2)))
    s = g / (1 + np.exp(-g))
    q = np.transpose(np.transpose(s, (2, 0, 1)))
    fl = q.reshape(6, 4).reshape(3, -1).reshape(-1)
    x64 = x.astype("float64")
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    np.savez(f"{d}/shape_ops.want.npz", **{
        "output.0": fl.astype("float32"),
        "output.1": x64.sum(axis=1, keepdims=True).astype("float32"),
        "output.2": x64.mean(axis=-1).astype("float32"),
        "output.3": np.float32(x.max()),
        "output.4": (e / e.sum(axis=1, keepdims=True)).astype("float32"),
        "output.5": np.concatenate((x, y), axis=2)})


def conv2d(x, w, stride, pad, dil, groups):
    """NCHW / OIHW convolution in float64, pad = (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh = (h + pad[0] + pad[2] - dil * (kh - 1) - 1) // stride + 1
    ow = (wd + pad[1] + pad[3] - dil * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for f in range(o):
        g = f // og
        for i in range(oh):
            for j in range(ow):
                win = xp[:, g * cg:(g + 1) * cg, i * stride:i * stride + dil * (kh - 1) + 1:dil,
                         j * stride:j * stride + dil * (kw - 1) + 1:dil]
                out[:, f, i, j] = (win * w[f]).sum(axis=(1, 2, 3))
    return out


def pool2d(x, k, stride, pad, oh, ow, kind, include_pad=False):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            y0, x0 = i * stride - pad, j * stride - pad
            ys, xs = max(y0, 0), max(x0, 0)
            ye, xe = min(y0 + k, h), min(x0 + k, w)
            win = x[:, :, ys:ye, xs:xe]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                div = (min(y0 + k, h + pad) - y0) * (min(x0 + k, w + pad) - x0) \
                    if include_pad else (ye - ys) * (xe - xs)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return out


def adaptive_avg(g, o):
    """Adaptive average pooling of NCHW g to o x o (PyTorch's windows)."""
    n, c, h, w = g.shape
    a = np.zeros((n, c, o, o))
    for i in range(o):
        for j in range(o):
            y0, y1 = i * h // o, -(-(i + 1) * h // o)
            x0, x1 = j * w // o, -(-(j + 1) * w // o)
            a[:, :, i, j] = g[:, :, y0:y1, x0:x1].mean(axis=(2, 3))
    return a


def make_nn(d):
    rng = np.random.default_rng(17)
    f = lambda *s: rng.uniform(-1, 1, s).astype("float32")
    x, w, wg = f(2, 4, 11, 11), f(6, 4, 3, 3), f(6, 2, 3, 3)
    gamma, beta, mean = f(6), f(6), f(6)
    var = rng.uniform(0.5, 2, 6).astype("float32")
    lg, lb = f(3), f(3)
    np.savez(f"{d}/nn_ops.npz", x=x, w=w, wg=wg, gamma=gamma, beta=beta, mean=mean, var=var,
             lg=lg, lb=lb)
    c = conv2d(x.astype("float64"), w, 2, (1, 1, 1, 1), 1, 1)
    bn = (c - mean[:, None, None]) / np.sqrt(var[:, None, None].astype("float64") + 1e-5)
    bn = bn * gamma[:, None, None] + beta[:, None, None]
    g = conv2d(np.maximum(bn, 0), wg, 1, (2, 2, 2, 2), 2, 3)
    p = pool2d(g, 3, 2, 0, 3, 3, "max")
    q = pool2d(g, 3, 2, 1, 3, 3, "avg")
    qc = pool2d(g, 3, 2, 1, 3, 3, "avg", include_pad=True)
    a = adaptive_avg(g, 3)
    mu = a.mean(axis=-1, keepdims=True)
    sd = np.sqrt(((a - mu) ** 2).mean(axis=-1, keepdims=True) + 1e-5)
    ln = (a - mu) / sd * lg + lb
    f32 = lambda v: v.astype("float32")
    np.savez(f"{d}/nn_ops.want.npz", **{
        "output.0": f32(p), "output.1": f32(q), "output.2": f32(qc),
        "output.3": f32(ln[:, 0:2]), "output.4": f32(ln[:, 4:6]), "output.5": f32(q[:, 1:4]),
        "output.6": mean})


def make_layouts(d):
    """nn_layouts.py: make_nn's operators on NHWC data (the NCHW reference transposed)."""
    rng = np.random.default_rng(19)
    f = lambda *s: rng.uniform(-1, 1, s).astype("float32")
    x, w, wg, xc, wi = f(2, 4, 11, 11), f(6, 4, 3, 3), f(6, 2, 3, 3), f(2, 4, 11, 11), f(6, 4, 3, 3)
    nhwc = lambda v: v.transpose(0, 2, 3, 1)
    np.savez(f"{d}/nn_layouts.npz", x=nhwc(x), w=w.transpose(2, 3, 1, 0),
             wg=wg.transpose(0, 2, 3, 1), xc=xc.transpose(1, 0, 2, 3),
             wi=wi.transpose(1, 2, 3, 0))
    c = conv2d(x.astype("float64"), w, 2, (1, 1, 1, 1), 1, 1)
    g = conv2d(np.maximum(c, 0), wg, 1, (2, 2, 2, 2), 2, 3)
    p = pool2d(g, 3, 2, 0, 3, 3, "max")
    q = pool2d(g, 3, 2, 1, 3, 3, "avg")
    qc = pool2d(g, 3, 2, 1, 3, 3, "avg", include_pad=True)
    a = adaptive_avg(g, 3)
    k = conv2d(xc.astype("float64"), wi, 1, (1, 0, 0, 1), 1, 1)
    f32 = lambda v: nhwc(v).astype("float32")
    np.savez(f"{d}/nn_layouts.want.npz", **{
        "output.0": f32(c), "output.1": f32(g), "output.2": f32(p), "output.3": f32(q),
        "output.4": f32(qc), "output.5": f32(a),
        "output.6": k.transpose(1, 0, 2, 3).astype("float32")})


def make_slices(d):
    """slices.py: R.strided_slice against NumPy's slicing."""
    x = np.random.default_rng(29).uniform(-1, 1, (2, 6, 8)).astype("float32")
    np.savez(f"{d}/slices.npz", x=x)
    np.savez(f"{d}/slices.want.npz", **{"output.0": x[:, 1:100:2, 0:-2:3],
             "output.1": x[:, :, -3:8], "output.2": np.maximum(x[1:2], 0)})


def make_erf_power(d):
    """erf_power.py: GELU through erf, and exp(x) ** e."""
    from math import erf
    rng = np.random.default_rng(31)
    x = rng.uniform(-2, 2, (3, 4)).astype("float32")
    e = rng.uniform(0.5, 3, 4).astype("float32")
    np.savez(f"{d}/erf_power.npz", x=x, e=e)
    xd = x.astype("float64")
    g = xd * (np.vectorize(erf)(xd / np.sqrt(2)) + 1) * 0.5
    np.savez(f"{d}/erf_power.want.npz", **{"output.0": g.astype("float32"),
             "output.1": (np.exp(xd) ** e).astype("float32")})


def make_gather_ops(d):
    """gather_ops.py: maximum / minimum, where, take, broadcast_to against NumPy."""
    rng = np.random.default_rng(37)
    x = rng.uniform(-1, 1, (3, 4)).astype("float32")
    m = np.array([[True], [False], [True]])
    i = np.array([[2, 0], [-1, 1]], "int64")
    j = np.array([3, -4, 0, 1, -1], "int32")
    r = rng.uniform(-1, 1, 4).astype("float32")
    np.savez(f"{d}/gather_ops.npz", x=x, m=m, i=i, j=j, r=r)
    np.savez(f"{d}/gather_ops.want.npz", **{
        "output.0": np.clip(x, -0.5, 0.5), "output.1": np.where(m, x, r),
        "output.2": np.take(x, i, axis=0), "output.3": np.take(x, j, axis=-1),
        "output.4": np.broadcast_to(r, (2, 3, 4))})


def compare(got, want):
    g, w = np.load(got), np.load(want)
    if sorted(g.files) != sorted(w.files):
        print(f"# outputs {sorted(g.files)}, want {sorted(w.files)}")
        return 1
    for k in w.files:
        exact = w[k].dtype.kind in "iu"
        if g[k].shape != w[k].shape or g[k].dtype != w[k].dtype or \
                not (np.array_equal(g[k], w[k]) if exact else
                     np.allclose(g[k], w[k], rtol=1e-5, atol=1e-5)):
            print(f"# {k}: got {g[k].dtype}{g[k].shape}, want {w[k].dtype}{w[k].shape}; "
                  f"max diff {np.max(np.abs(g[k] - w[k])) if g[k].shape == w[k].shape else '-'}")
            return 1
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
        make_int(sys.argv[2])
        make_matvec(sys.argv[2])
        make_shape_ops(sys.argv[2])
        make_nn(sys.argv[2])
        make_layouts(sys.argv[2])
        make_slices(sys.argv[2])
        make_erf_power(sys.argv[2])
        make_gather_ops(sys.argv[2])
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
