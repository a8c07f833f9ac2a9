# T = A * 3 (an intermediate), B = T + 1; float32.
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    Tmp = T.alloc_buffer((16,))
    for i in range(16):
        with T.block("T"):
            vi = T.axis.spatial(16, i)
            Tmp[vi] = A[vi] * T.float32(3)
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = Tmp[vi] + T.float32(1)
