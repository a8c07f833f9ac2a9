from tvm.script import tir as T


@T.prim_func
def main(C: T.Buffer((16, 16), "float16")):
    with T.block("fill"):
        T.reads()
        T.writes(C[0:16, 0:16])
        T.evaluate(T.tvm_fill_fragment(C.data, 16, 16, 16, T.float16(0), dtype="handle"))
