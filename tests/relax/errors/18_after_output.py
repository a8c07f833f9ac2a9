from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class M:
    @T.prim_func
    def add1(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (n, 8))
        Y = T.match_buffer(y, (n, 8))
        for i, j in T.grid(n, 8):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = X[vi, vj] + T.float32(1)

    @T.prim_func
    def pair(x: T.handle, z: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (n,))
        Z = T.match_buffer(z, (n,))
        Y = T.match_buffer(y, (n,))
        for i in range(n):
            with T.block("Y"):
                vi = T.axis.remap("S", [i])
                Y[vi] = X[vi] + Z[vi]
    @R.function
    def main(x: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            a = R.nn.relu(x)
            R.output(a)
            return a
