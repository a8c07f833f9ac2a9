# The course's first module as it writes it: env.linear and env.relu called by name with
# R.call_dps_packed (built-in library functions whose prim_funcs legalize calls them with, so
# the module compiles).
# from tvm.script import relax as R

@I.ir_module
class CourseEnv:
    @R.function
    def main(x: R.Tensor((1, 784), "float32"), w0: R.Tensor((128, 784), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((10, 128), "float32"),
             b1: R.Tensor((10,), "float32")) -> R.Tensor((1, 10), "float32"):
        with R.dataflow():
            lv0 = R.call_dps_packed("env.linear", (x, w0, b0), R.Tensor((1, 128), dtype="float32"))
            lv1 = R.call_dps_packed("env.relu", (lv0,), R.Tensor((1, 128), dtype="float32"))
            out = R.call_dps_packed("env.linear", (lv1, w1, b1), R.Tensor((1, 10), dtype="float32"))
            R.output(out)
        return out
