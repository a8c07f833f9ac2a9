# Blocks without T.reads/T.writes (regions must be inferred): row sums of a 16x32 float32 matrix, then scaling by 0.5.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), S: T.Buffer((16,), "float32"), H: T.Buffer((16,), "float32")):
    for i in range(16):
        for k in range(32):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
    for i in range(16):
        with T.block("H"):
            vi = T.axis.remap("S", [i])
            H[vi] = S[vi] * T.float32(0.5)
