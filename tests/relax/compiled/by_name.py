# A two-layer network whose kernels are called by name, R.call_dps_packed("dense", ...), as the
# course's first end-to-end module does; the sizes m, n, k are symbolic and bound by the inputs.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class ByName:
    @T.prim_func
    def dense(x: T.handle, w: T.handle, b: T.handle, y: T.handle):
        m, n = T.int64(), T.int64()
        X = T.match_buffer(x, (1, m), "float32")
        W = T.match_buffer(w, (n, m), "float32")
        B = T.match_buffer(b, (n,), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        for i, j, r in T.grid(1, n, m):
            with T.block("Y"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    Y[vi, vj] = B[vj]
                Y[vi, vj] = Y[vi, vj] + X[vi, vr] * W[vj, vr]

    @T.prim_func
    def clip(x: T.handle, y: T.handle):
        n = T.int64()
        X = T.match_buffer(x, (1, n), "float32")
        Y = T.match_buffer(y, (1, n), "float32")
        for i, j in T.grid(1, n):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.min(T.max(X[vi, vj], T.float32(0)), T.float32(1))

    @R.function
    def main(x: R.Tensor((1, "m"), "float32"), w0: R.Tensor(("n", "m"), "float32"),
             b0: R.Tensor(("n",), "float32"), w1: R.Tensor(("k", "n"), "float32"),
             b1: R.Tensor(("k",), "float32")):
        m, n, k = T.int64(), T.int64(), T.int64()
        with R.dataflow():
            h = R.call_dps_packed("dense", (x, w0, b0), R.Tensor((1, n), "float32"))
            a = R.call_dps_packed("clip", (h,), R.Tensor((1, n), "float32"))
            out = R.call_dps_packed("dense", (a, w1, b1), R.Tensor((1, k), "float32"))
            R.output(out)
        return out
