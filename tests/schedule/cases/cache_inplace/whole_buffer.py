@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for t in range(1):
        with T.block("scan"):
            T.reads(A[0:16])
            T.writes(A[0:16])
            for i in range(15):
                A[i + 1] = A[i + 1] + A[i]
