from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128,), "float32"), A: T.Buffer((128,), "float32")):
    for i in range(128):
        A[i] = A[i] + T.float32(1)
