# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class IntOps:
    @R.function
    def main(a: R.Tensor((4,), dtype="int32"), b: R.Tensor((4,), dtype="int32")) -> R.Tensor((4,), dtype="int32"):
        with R.dataflow():
            c = R.multiply(a, b)
            d = R.subtract(R.add(c, a), b)
            e = R.divide(d, b)
            R.output(e)
        return e
