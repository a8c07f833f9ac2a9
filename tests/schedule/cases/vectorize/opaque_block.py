# A running sum in place: an opaque block (no iterators) that reads what
# the previous iteration wrote.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32")):
    for i in range(15):
        with T.block("opaque"):
            A[i + 1] = A[i + 1] + A[i]
