# R.erf and R.power (1.7): element-wise, power broadcasting a row of exponents; GELU written
# with erf, as ONNX exporters write it.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class ErfPower:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), e: R.Tensor((4,), dtype="float32")):
        with R.dataflow():
            g = R.multiply(R.multiply(x, R.add(R.erf(R.divide(x, R.const(1.4142135623730951, "float32"))), R.const(1.0, "float32"))), R.const(0.5, "float32"))
            p = R.power(R.exp(x), e)
            out = (g, p)
            R.output(out)
        return out
