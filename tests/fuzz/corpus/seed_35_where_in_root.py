from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((128,), "float32")):
    with T.block("root"):
        T.where(True)
        for i in range(128):
            A[i] = T.float32(0)
