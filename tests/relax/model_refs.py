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
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
