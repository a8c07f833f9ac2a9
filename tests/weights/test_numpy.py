"""TAP: `tessel weights` against NumPy (Debian's python3-numpy, run by
/usr/bin/python3 through test_numpy.sh).

NumPy writes .npy (format 1.0, 2.0, 3.0) and .npz (np.savez stored,
np.savez_compressed deflated) files of float16, float32, float64, int8,
int64, uint8, uint16, bool, a 0-d array and an empty one; tessel lists
them (text and --json), converts each to .npy / .npz / .safetensors, and
NumPy reads tessel's .npy and .npz back equal (tessel's .npy bytes equal
np.save's); tessel's .safetensors is parsed with json + struct alone.
A Fortran-order array, big-endian ones, an object and a unicode array
must be refused with a message naming the file. Without numpy in
/usr/bin/python3 this is a failed case, not a skip.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

n = failed = 0


def case(good, what, detail=""):
    global n, failed
    n += 1
    failed += not good
    print(f"{'' if good else 'not '}ok {n} - {what}")
    if not good and detail:
        for line in str(detail).splitlines()[-20:]:
            print(f"# {line}")
    sys.stdout.flush()
    return good


def done():
    print(f"1..{n}")
    sys.exit(1 if failed else 0)


try:
    import numpy as np
except ImportError as e:
    case(False, f"numpy imports in {sys.executable} (Debian: apt-get install python3-numpy)", e)
    done()
case(True, f"numpy {np.__version__} imports in {sys.executable}")

exe = os.environ.get("TESSEL_EXE") or os.path.join(
    os.environ.get("TESSEL_BUILD_ROOT", "build"), "core/cli/tessel")
tmp = tempfile.mkdtemp(prefix="tessel-weights-np-")


def p(name):
    return os.path.join(tmp, name)


def tessel(*args):
    r = subprocess.run([exe, "weights", *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


arrays = {
    "f16": np.array([[1.5, -2.25, 65504.0], [6.1e-5, 0.0, -0.0]], dtype=np.float16),
    "f32": (np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7).astype(np.float32),
    "f64": np.array([np.pi, -1e300, 5e-324], dtype=np.float64),
    "i8": np.array([-128, 0, 127], dtype=np.int8),
    "i64": np.array([-(2 ** 62), 0, 2 ** 62 + 5, -1], dtype=np.int64),
    "u8": np.arange(10, dtype=np.uint8),
    "u16": np.array([[0, 65535], [1, 2]], dtype=np.uint16),
    "flags": np.array([[True, False, True, True, False]] * 3),
    "scalar": np.array(3.25, dtype=np.float32),
    "empty": np.zeros((0, 3), dtype=np.float32),
}
names = {"float16": "float16", "float32": "float32", "float64": "float64", "int8": "int8",
         "int64": "int64", "uint8": "uint8", "uint16": "uint16", "bool": "bool"}
st_dtypes = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "i1", "I16": "<i2", "I32": "<i4",
             "I64": "<i8", "U8": "u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "?"}


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def listed_as(js, want):
    """--json tensors equal to the dict `want` (in order)."""
    got = [(t["name"], t["dtype"], tuple(t["shape"]), t["bytes"]) for t in js["tensors"]]
    exp = [(k, names[str(a.dtype)], a.shape, a.nbytes) for k, a in want.items()]
    return got == exp, f"got {got}\nwant {exp}"


def read_safetensors(path):
    """The tensors of a .safetensors file, with json and struct only."""
    with open(path, "rb") as f:
        raw = f.read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + hlen].decode("utf-8"))
    data = raw[8 + hlen:]
    out, end = {}, 0
    for k, v in header.items():
        if k == "__metadata__":
            continue
        b, e = v["data_offsets"]
        assert b == end, f"{k}: begins at {b}, the one before ends at {end}"
        end = e
        a = np.frombuffer(data[b:e], dtype=st_dtypes[v["dtype"]]).reshape(v["shape"])
        out[k] = a
    assert end == len(data), f"the tensors use {end} of {len(data)} bytes"
    assert (8 + hlen) % 8 == 0, "the data is not 8-aligned"
    return out, header


# ---- .npy files: list, byte-identical re-save, conversions ----
for k, a in arrays.items():
    src = p(f"{k}.npy")
    np.save(src, a)
    rc, out, err = tessel(src, "--json")
    ok_list = rc == 0
    if ok_list:
        good, why = listed_as(json.loads(out), {k: a})
    case(ok_list and good, f"np.save {k} ({a.dtype}, shape {a.shape}): tessel lists it",
         err if rc else why)
    rc, out, err = tessel(src, "--convert", p(f"{k}.t.npy"))
    case(rc == 0 and open(src, "rb").read() == open(p(f"{k}.t.npy"), "rb").read(),
         f"{k}: tessel's .npy has np.save's bytes", err)
    for ext in ("npz", "safetensors"):
        rc, out, err = tessel(src, "--convert", p(f"{k}.t.{ext}"))
        if ext == "npz":
            ok_conv = rc == 0
            if ok_conv:
                with np.load(p(f"{k}.t.npz")) as z:
                    ok_conv = list(z.keys()) == [k] and same(z[k], a)
        else:
            ok_conv = rc == 0
            if ok_conv:
                got, _ = read_safetensors(p(f"{k}.t.safetensors"))
                ok_conv = list(got) == [k] and same(got[k].astype(a.dtype), a)
        case(ok_conv, f"{k}: --convert .{ext}, read back equal by "
             f"{'np.load' if ext == 'npz' else 'json + struct'}", err)

# format versions 2.0 and 3.0
for ver in ((2, 0), (3, 0)):
    src = p(f"v{ver[0]}.npy")
    with open(src, "wb") as f:
        np.lib.format.write_array(f, arrays["f32"], version=ver)
    rc, out, err = tessel(src, "--convert", p(f"v{ver[0]}.t.npz"))
    good = rc == 0
    if good:
        with np.load(p(f"v{ver[0]}.t.npz")) as z:
            good = same(z[f"v{ver[0]}"], arrays["f32"])
    case(good, f"a format {ver[0]}.0 .npy reads and converts", err)

# ---- .npz files: stored and deflated ----
for kind, save in (("savez", np.savez), ("savez_compressed", np.savez_compressed)):
    src = p(f"{kind}.npz")
    save(src, **arrays)
    rc, out, err = tessel(src, "--json")
    good = rc == 0
    if good:
        good, why = listed_as(json.loads(out), arrays)
    case(good, f"np.{kind}: tessel lists every array in order", err if rc else why)
    rc, out, err = tessel(src)
    lines = out.splitlines()
    case(rc == 0 and lines[0].split() == ["NAME", "DTYPE", "SHAPE", "BYTES"] and
         lines[2].split() == ["f32", "float32", "[2,", "3,", "4]", "96"] and
         lines[9].split() == ["scalar", "float32", "[]", "4"] and
         lines[-1].startswith(f"{len(arrays)} tensors, "),
         f"np.{kind}: the text listing (name, dtype, shape, bytes; a total)", out + err)
    for ext in ("npz", "safetensors"):
        dst = p(f"{kind}.t.{ext}")
        rc, out, err = tessel(src, "--convert", dst)
        good = rc == 0
        if good and ext == "npz":
            with np.load(dst) as z:
                good = list(z.keys()) == list(arrays) and all(same(z[k], a) for k, a in
                                                               arrays.items())
        elif good:
            got, header = read_safetensors(dst)
            good = list(got) == list(arrays) and all(
                same(got[k].astype(a.dtype), a) for k, a in arrays.items())
        case(good, f"np.{kind} --convert .{ext}: equal, in order", err)
    # back from safetensors to npz
    rc, out, err = tessel(p(f"{kind}.t.safetensors"), "--convert", p(f"{kind}.t2.npz"))
    good = rc == 0
    if good:
        with np.load(p(f"{kind}.t2.npz")) as z:
            good = all(same(z[k], a) for k, a in arrays.items())
    case(good, f"np.{kind} -> .safetensors -> .npz: NumPy reads it equal", err)

np.savez(p("positional.npz"), arrays["u8"], arrays["i8"])
rc, out, err = tessel(p("positional.npz"), "--json")
case(rc == 0 and [t["name"] for t in json.loads(out)["tensors"]] == ["arr_0", "arr_1"],
     "np.savez positional arrays are arr_0, arr_1", err)
np.savez(p("empty_archive.npz"))
rc, out, err = tessel(p("empty_archive.npz"), "--convert", p("empty.t.npz"))
good = rc == 0 and out.splitlines()[-1].startswith("0 tensors")
if good:
    with np.load(p("empty.t.npz")) as z:
        good = list(z.keys()) == []
case(good, "an empty np.savez archive lists 0 tensors and converts", out + err)

# ---- refused with a message naming the file ----
fortran = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
bad = {
    "fortran.npy": (lambda f: np.save(f, fortran), "fortran_order is True"),
    "bigendian.npy": (lambda f: np.save(f, np.arange(4, dtype=">i4")), "big-endian"),
    "bigf8.npy": (lambda f: np.save(f, np.arange(4, dtype=">f8")), "big-endian"),
    "object.npy": (lambda f: np.save(f, np.array([1, "a"], dtype=object), allow_pickle=True),
                   "Python objects"),
    "unicode.npy": (lambda f: np.save(f, np.array(["ab", "c"])), "unicode strings"),
    "bemember.npz": (lambda f: np.savez(f, good=arrays["u8"], be=np.arange(3, dtype=">u2")),
                     "member 'be.npy'"),
    "fortranmember.npz": (lambda f: np.savez_compressed(f, w=fortran), "member 'w.npy'"),
}
for name, (make, frag) in bad.items():
    make(p(name))
    rc, out, err = tessel(p(name))
    case(rc == 2 and p(name) in err and frag in err and "error:" in err,
         f"{name}: refused, exit 2, naming the file and saying '{frag}'", f"rc {rc}\n{err}")

# a bfloat16 safetensors file (json + struct) does not go into .npz
hdr = json.dumps({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}).encode()
hdr += b" " * (-len(hdr) % 8)
with open(p("bf16.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(hdr)) + hdr + b"\x80\x3f\x00\x40")
rc, out, err = tessel(p("bf16.safetensors"), "--convert", p("bf16.npz"))
case(rc == 2 and "bfloat16" in err and "no NumPy dtype" in err and not os.path.exists(p("bf16.npz")),
     "a bfloat16 tensor into .npz: refused, no file written", err)
rc, out, err = tessel(p("bf16.safetensors"), "--convert", p("bf16.t.safetensors"))
good = rc == 0
if good:
    raw = open(p("bf16.t.safetensors"), "rb").read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    good = (json.loads(raw[8:8 + hlen]) ==
            {"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}} and
            raw[8 + hlen:] == b"\x80\x3f\x00\x40" and hlen % 8 == 0)
case(good, "bfloat16 .safetensors -> .safetensors: the same header and bytes (json + struct)",
     err)

# ---- the command line ----
rc, out, err = tessel("--help")
case(rc == 0 and "--convert OUT" in out and ".safetensors" in out, "tessel weights --help")
rc, out, err = tessel()
case(rc == 2 and "no FILE" in err, "tessel weights without FILE: exit 2", err)
rc, out, err = tessel(p("f32.npy"), "--bogus")
case(rc == 2 and "unknown option '--bogus'" in err, "an unknown option: exit 2", err)
rc, out, err = tessel(p("f32.npy"), "--convert", p("x.bin"))
case(rc == 2 and "unknown extension" in err, "--convert to an unknown extension: exit 2", err)
rc, out, err = tessel(p("savez.npz"), "--convert", p("two.npy"))
case(rc == 2 and "exactly one tensor" in err, "--convert many tensors to .npy: exit 2", err)

subprocess.run(["rm", "-rf", tmp])
done()
