# The course's first module: library functions called by name, R.call_dps_packed("env.linear", ...)
# and env.relu (built in, with prim_funcs: legalize turns them into R.call_tir, so they compile), and
# env.scale2 (the test plugin's user library function, tests/relax/plugins/tp_passes.c).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Library:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((1, 10), "float32"):
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), dtype="float32"))
            lv2 = R.call_dps_packed("env.scale2", (lv1,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv2, w1, b1), R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out
