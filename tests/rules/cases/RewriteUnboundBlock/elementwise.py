# A 512 x 512 elementwise block on no thread loop: both loops fused, the
# 262144 iterations split into 256 blocks of 1024 threads.
@T.prim_func
def main(X: T.Buffer((512, 512), "float32"), Y: T.Buffer((512, 512), "float32")):
    for i, j in T.grid(512, 512):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = X[vi, vj] * T.float32(2) - T.float32(1)
