# fuse on a symbolic batch: matmul, add and relu become one prim_func whose intermediate
# buffers (matmul, T_add) are sized by the one batch variable its input binds.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class SymbolicChain:
    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float32"), w: R.Tensor((16, 8), dtype="float32"),
             b: R.Tensor((8,), dtype="float32")) -> R.Tensor(("n", 8), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            m = R.matmul(x, w)
            a = R.add(m, b)
            y = R.nn.relu(a)
            R.output(y)
        return y
