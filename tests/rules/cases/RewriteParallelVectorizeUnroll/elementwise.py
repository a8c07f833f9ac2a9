# Elementwise: every loop spatial, so parallel and vectorize share one fused loop.
@T.prim_func
def main(A: T.Buffer((64, 48), "float32"), B: T.Buffer((64, 48), "float32")):
    for i, j in T.grid(64, 48):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
