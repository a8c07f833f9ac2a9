# Per row m: a copy, then a row sum (a reduction with an init).
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), S: T.Buffer((4,), "float32")):
    for m in range(4):
        for j in range(8):
            with T.block("B"):
                vm, vj = T.axis.remap("SS", [m, j])
                B[vm, vj] = A[vm, vj] + T.float32(1)
        for k in range(8):
            with T.block("S"):
                vm, vk = T.axis.remap("SR", [m, k])
                with T.init():
                    S[vm] = T.float32(0)
                S[vm] = S[vm] + A[vm, vk]
