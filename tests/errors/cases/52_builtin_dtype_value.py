from tvm.script import tir as T


@T.prim_func
def main(C: T.Buffer((32, 8), "float32")):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        T.evaluate(T.mma_fill("float31", 8, C.data, 0))
