# C[b] = sum over (i, j) of A[b, i, j], both reduction axes fused into f.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 16, 16), "float32"), C: T.Buffer((4,), "float32")):
    for b, f in T.grid(4, 256):
        with T.block("C"):
            vb = T.axis.spatial(4, b)
            vi = T.axis.reduce(16, f // 16)
            vj = T.axis.reduce(16, f % 16)
            with T.init():
                C[vb] = T.float32(0)
            C[vb] = C[vb] + A[vb, vi, vj]
