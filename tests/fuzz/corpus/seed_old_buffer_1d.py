# Older 1-D spellings: T.Buffer[128, "float32"] parameters and T.match_buffer(h, [128], dtype=...); computes C = A * B + A elementwise.
# from tvm.script import tir as T

@T.prim_func
def vmul(a: T.handle, B: T.Buffer[128, "float32"], C: T.Buffer[128, "float32"]) -> None:
    A = T.match_buffer(a, [128], dtype="float32")
    for i in T.serial(0, 128):
        with T.block("C"):
            vi = T.axis.S(128, i)
            C[vi] = A[vi] * B[vi] + A[vi]
