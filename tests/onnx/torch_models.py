"""PyTorch's models for tests/onnx/test_torch.sh: Debian's python3-torch builds the
course's MLP, a network of ResNet-18's shape and one transformer encoder block from
torch.nn with seeded random weights, and exports each with torch.onnx.export (operator
set 17). `torch_models.py DIR` writes DIR/NAME.onnx, DIR/NAME.in.npz (input x) and
DIR/NAME.want.npz (PyTorch's output on it). Run by /usr/bin/python3."""
import sys

import numpy as np
import torch
from torch import nn


class Block(nn.Module):
    """ResNet's basic block: two 3x3 convolutions with batch norm, a projected shortcut
    where the shape changes."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    """ResNet-18's layers (stem 7x7/2 and max pool, four stages of two blocks, 64 to 512
    channels, global average pool, a 1000-way classifier)."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], 64
        for i, cout in enumerate((64, 128, 256, 512)):
            blocks += [Block(cin, cout, 1 if i == 0 else 2), Block(cout, cout, 1)]
            cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


def randomize(model):
    """Seeded weights, and batch norm statistics that are not the identity."""
    g = torch.Generator().manual_seed(2026)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.copy_(1 + 0.1 * torch.randn(m.weight.shape, generator=g))
                m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=g))
                m.running_mean.copy_(0.1 * torch.randn(m.running_mean.shape, generator=g))
                m.running_var.copy_(1 + 0.2 * torch.rand(m.running_var.shape, generator=g))
    return model.eval()


def models():
    torch.manual_seed(2026)
    mlp = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    block = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
    return {
        # the course's MLP on a batch of 28x28 images; the batch a symbolic size
        "mlp": (mlp, torch.randn(3, 1, 28, 28), {"x": {0: "batch"}, "y": {0: "batch"}}),
        "resnet18": (randomize(ResNet18()), torch.randn(1, 3, 32, 32), None),
        # one encoder block over 10 tokens; the sequence length a symbolic size
        "transformer": (block, torch.randn(1, 10, 64), {"x": {1: "seq"}, "y": {1: "seq"}}),
    }


def main(out):
    for name, (model, x, dynamic) in models().items():
        model.eval()
        with torch.inference_mode():
            want = model(x)
        # gradients on while exporting: no_grad would take TransformerEncoderLayer's
        # fused fast path, which has no ONNX form
        torch.onnx.export(model, (x,), f"{out}/{name}.onnx", opset_version=17,
                          input_names=["x"], output_names=["y"], dynamic_axes=dynamic)
        np.savez(f"{out}/{name}.in.npz", x=x.numpy())
        np.savez(f"{out}/{name}.want.npz", output=want.numpy())


if __name__ == "__main__":
    main(sys.argv[1])
