# D[b] = sqrt(sum over i, j of A[b, i, j]^2) for A of 1x512x512 float32: a
# reduction over two loops feeding one scalar block (MetaSchedule's norm_bmn).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1, 512, 512), "float32"), D: T.Buffer((1,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    C = T.alloc_buffer((1,))
    for b, i, j in T.grid(1, 512, 512):
        with T.block("C"):
            vb, vi, vj = T.axis.remap("SRR", [b, i, j])
            T.reads(A[vb, vi, vj])
            T.writes(C[vb])
            with T.init():
                C[vb] = T.float32(0)
            C[vb] = C[vb] + A[vb, vi, vj] * A[vb, vi, vj]
    for b in range(1):
        with T.block("D"):
            vb = T.axis.spatial(1, b)
            T.reads(C[vb])
            T.writes(D[vb])
            D[vb] = T.sqrt(C[vb])
