#!/usr/bin/python3
"""PyTorch's side of `./tessel bench model` (Debian's python3-torch and
python3-numpy, run by /usr/bin/python3). The same models as the Relax files
of workloads/models, written with torch.nn.functional on the same weights:

  torch_ref.py make NAME SRC_DIR OUT_DIR
      OUT_DIR/model.py (the Relax model: workloads/models/NAME.py, the MLP at
      batch 64 for mlp64), OUT_DIR/weights.npz (every parameter but x, seeded,
      scaled as a trained network's: He initialization, small biases) and
      OUT_DIR/x.npy.
  torch_ref.py time NAME OUT_DIR THREADS SECONDS
      runs the model with THREADS threads (after 10 warm-up calls) in repeats
      of at least 50 ms for about SECONDS, prints one JSON line {"latency_s":
      median per call, "repeats": n} and writes OUT_DIR/torch_out.npy.
  torch_ref.py export NAME OUT_DIR
      OUT_DIR/model.onnx: the same model exported by torch.onnx.export
      (operator set 17, input x, output y), its weights as initializers.
  torch_ref.py compare A.npy B.npy
      prints {"max_abs": .., "max_ref": ..} of the two outputs."""
import json
import sys
import time

import numpy as np


def mlp_source(src, batch):
    text = open(src + "/mlp.py").read()
    return text.replace("(1, 784)", "(%d, 784)" % batch).replace(
        "(1, 128)", "(%d, 128)" % batch).replace("(1, 10)", "(%d, 10)" % batch)


def param_shapes(text):
    """name -> shape of main's parameters, read from the Relax text."""
    import re
    head = text[text.index("def main("):text.index("->")]
    out = {}
    for name, dims in re.findall(r"(\w+): R\.Tensor\(\(([^)]*)\)", head):
        out[name] = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
    return out


def make(name, src, out):
    text = mlp_source(src, 64 if name == "mlp64" else 1) if name.startswith("mlp") else \
        open("%s/%s.py" % (src, name)).read()
    open(out + "/model.py", "w").write(text)
    rng = np.random.default_rng(2026)
    weights = {}
    for p, shape in param_shapes(text).items():
        if p == "x":
            np.save(out + "/x.npy", rng.standard_normal(shape).astype("float32"))
            continue
        if p == "scale":
            weights[p] = np.array([0.125], "float32")
        elif p.endswith("_g"):
            weights[p] = (1 + 0.1 * rng.standard_normal(shape)).astype("float32")
        elif len(shape) == 1 or p.endswith("_b") or p in ("b0", "b1", "b2", "bq", "bk", "bv", "bo"):
            weights[p] = (0.01 * rng.standard_normal(shape)).astype("float32")
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            weights[p] = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype("float32")
    np.savez(out + "/weights.npz", **weights)


def build(name, out):
    """torch, and the model as a function of its input."""
    import torch
    import torch.nn.functional as F
    w = {k: torch.from_numpy(v) for k, v in np.load(out + "/weights.npz").items()}
    if name.startswith("mlp"):
        def run(x):
            return F.relu(x @ w["w0"] + w["b0"]) @ w["w1"] + w["b1"]
    elif name == "resnet18":
        def conv(h, n, stride, pad, relu=True, res=None):
            y = F.conv2d(h, w[n + "_w"], w[n + "_b"].reshape(-1), stride=stride, padding=pad)
            if res is not None:
                y = y + res
            return F.relu(y) if relu else y

        def run(x):
            h = F.max_pool2d(conv(x, "conv1", 2, 3), 3, 2, 1)
            cin = 64
            for stage, cout in enumerate((64, 128, 256, 512), start=1):
                for blk in range(2):
                    stride = 2 if stage > 1 and blk == 0 else 1
                    n = "layer%d_%d" % (stage, blk)
                    y = conv(h, n + "_conv1", stride, 1)
                    short = h
                    if stride != 1 or cin != cout:
                        short = conv(h, n + "_down", stride, 0, relu=False)
                    h = conv(y, n + "_conv2", 1, 1, res=short)
                    cin = cout
            g = F.adaptive_avg_pool2d(h, 1).reshape(1, 512)
            return g @ w["fc_w"] + w["fc_b"]
    else:  # transformer: torch.nn.TransformerEncoderLayer with these weights
        layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
        with torch.no_grad():
            layer.self_attn.in_proj_weight.copy_(torch.cat([w["wq"].T, w["wk"].T, w["wv"].T]))
            layer.self_attn.in_proj_bias.copy_(torch.cat([w["bq"], w["bk"], w["bv"]]))
            layer.self_attn.out_proj.weight.copy_(w["wo"].T)
            layer.self_attn.out_proj.bias.copy_(w["bo"])
            layer.linear1.weight.copy_(w["w1"].T)
            layer.linear1.bias.copy_(w["b1"])
            layer.linear2.weight.copy_(w["w2"].T)
            layer.linear2.bias.copy_(w["b2"])
            layer.norm1.weight.copy_(w["ln1_g"])
            layer.norm1.bias.copy_(w["ln1_b"])
            layer.norm2.weight.copy_(w["ln2_g"])
            layer.norm2.bias.copy_(w["ln2_b"])
        layer.eval()

        def run(x):
            return layer(x.unsqueeze(0))[0]
        run.module = layer  # exported as the model's submodule: its weights are parameters
    return torch, run


def time_model(name, out, threads, seconds):
    torch, f = build(name, out)
    x = torch.from_numpy(np.load(out + "/x.npy"))
    torch.set_num_threads(threads)
    with torch.inference_mode():
        for _ in range(10):
            y = f(x)
        np.save(out + "/torch_out.npy", y.numpy())
        t0 = time.perf_counter()
        f(x)
        one = max(time.perf_counter() - t0, 1e-6)
        number = max(1, int(0.05 / one))
        reps, start = [], time.perf_counter()
        while len(reps) < 5 or time.perf_counter() - start < seconds:
            t0 = time.perf_counter()
            for _ in range(number):
                f(x)
            reps.append((time.perf_counter() - t0) / number)
    print(json.dumps({"latency_s": float(np.median(reps)), "repeats": len(reps)}))


def export(name, out):
    torch, f = build(name, out)
    x = torch.from_numpy(np.load(out + "/x.npy"))

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            if hasattr(f, "module"):
                self.inner = f.module

        def forward(self, x):
            return f(x)

    # with gradients on: no_grad would take TransformerEncoderLayer's fused
    # fast path, which has no ONNX form
    torch.onnx.export(Model().eval(), (x,), out + "/model.onnx", opset_version=17,
                      input_names=["x"], output_names=["y"])


def compare(a, b):
    x, y = np.load(a).astype("float64"), np.load(b).astype("float64")
    if x.size != y.size:
        print(json.dumps({"max_abs": -1, "max_ref": 0}))
        return
    print(json.dumps({"max_abs": float(np.max(np.abs(x.ravel() - y.ravel()))),
                      "max_ref": float(np.max(np.abs(y)))}))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "time":
        time_model(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    else:
        compare(sys.argv[2], sys.argv[3])
