# A squared norm over a batch of one (the spatial loop of extent 1, then two
# reduction loops) and its square root: each block gets its unit spatial loop
# fused and bound to 1 block x 1 thread; the reduction loops stay inside.
@T.prim_func
def main(A: T.Buffer((1, 64, 48), "float32"), N: T.Buffer((1,), "float32")):
    S = T.alloc_buffer((1,))
    for b, i, j in T.grid(1, 64, 48):
        with T.block("S"):
            vb, vi, vj = T.axis.remap("SRR", [b, i, j])
            with T.init():
                S[vb] = T.float32(0)
            S[vb] = S[vb] + A[vb, vi, vj] * A[vb, vi, vj]
    for b in range(1):
        with T.block("N"):
            vb = T.axis.spatial(1, b)
            N[vb] = T.sqrt(S[vb])
