# env.add (NumPy broadcasting) is a library function without a prim_func: it runs in the
# interpreter only, and a compiled model that calls it is refused by name.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class EnvAdd:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor((4, 8), "float32"):
        with R.dataflow():
            y = R.call_dps_packed("env.add", (x, b), R.Tensor((4, 8), dtype="float32"))
            z = R.nn.relu(y)
            R.output(z)
        return z
