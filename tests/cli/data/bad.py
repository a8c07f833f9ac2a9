@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    for i in range(4)
        A[i] = 0.0
