# Row sums of a 16x256 float32 matrix.
@T.prim_func
def main(A: T.Buffer((16, 256), "float32"), S: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 256):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]
