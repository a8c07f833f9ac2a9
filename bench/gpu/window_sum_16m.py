# The course's window sum at scale: B[i] = A[i] + A[i + 1] + A[i + 2] over 2^24 outputs, float32: memory-bound; its figure is the bandwidth it reaches against the device's peak, measured in the same run.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16777218,), "float32"), B: T.Buffer((16777216,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i in range(16777216):
        with T.block("C"):
            vi = T.axis.spatial(16777216, i)
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
