# A 512 x 512 elementwise block: the loops fused, the thread extent sampled
# from all six candidates (32 .. 1024); the seed draws 1024, TVM's decision
# in its test, so the program is 256 blocks x 1024 threads.
# seed: 10
@T.prim_func
def main(X: T.Buffer((512, 512), "float32"), Y: T.Buffer((512, 512), "float32")):
    for i, j in T.grid(512, 512):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = X[vi, vj] + T.float32(1)
