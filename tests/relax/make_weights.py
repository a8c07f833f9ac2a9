#!/usr/bin/env python3
"""Write float32 tensors of pseudo-random values as a NumPy .npz file, with
the standard library only (tests run where numpy may be missing).

usage: make_weights.py OUT.npz NAME=D0xD1... [NAME=...]   (e.g. w0=784x128)
Values: a fixed linear congruential sequence scaled into [-0.1, 0.1)."""
import struct
import sys
import zipfile


def npy(shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % "".join(
        "%d, " % d for d in shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() +
            struct.pack("<%df" % len(values), *values))


def main():
    out, specs = sys.argv[1], sys.argv[2:]
    state = 12345
    with zipfile.ZipFile(out, "w") as z:
        for spec in specs:
            name, dims = spec.split("=")
            shape = [int(d) for d in dims.split("x")]
            count = 1
            for d in shape:
                count *= d
            values = []
            for _ in range(count):
                state = (state * 1103515245 + 12345) % 2**31
                values.append((state / 2**31 - 0.5) * 0.2)
            z.writestr(name + ".npy", npy(shape, values))


if __name__ == "__main__":
    main()
