from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    with T.block("opaque"):
        T.reads(A[0:64])
        T.writes(A[0:64])
        T.evaluate(A.access_ptr("rx", extent=64))
