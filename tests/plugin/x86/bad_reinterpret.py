@T.prim_func
def main(A: T.Buffer((4,), "uint8"), C: T.Buffer((1,), "int64")):
    with T.block("root"):
        C[0] = T.reinterpret("int64", A[0:4])
