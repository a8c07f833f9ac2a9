# Every function of the module is rewritten (TVM walks them all): main and
# a second function, each with one unbound block.
@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for i in range(64):
            with T.block("B"):
                vi = T.axis.spatial(64, i)
                B[vi] = A[vi] + T.float32(1)

    @T.prim_func
    def other(A: T.Buffer((8, 300), "float32"), B: T.Buffer((8, 300), "float32")):
        for i, j in T.grid(8, 300):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(3)
