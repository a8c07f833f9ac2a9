# R.maximum, R.minimum, R.where, R.take and R.broadcast_to (1.8): a clip written with
# maximum and minimum, a select under a bool mask broadcast along rows, rows and columns
# gathered at int64 indices (negative ones count from the end), and a row broadcast to a
# matrix.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class GatherOps:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), m: R.Tensor((3, 1), dtype="bool"), i: R.Tensor((2, 2), dtype="int64"), j: R.Tensor((5,), dtype="int32"), r: R.Tensor((4,), dtype="float32")):
        with R.dataflow():
            c = R.minimum(R.maximum(x, R.const(-0.5, "float32")), R.const(0.5, "float32"))
            w = R.where(m, x, r)
            rows = R.take(x, i, axis=0)
            cols = R.take(x, j, axis=-1)
            b = R.broadcast_to(r, R.shape([2, 3, 4]))
            out = (c, w, rows, cols, b)
            R.output(out)
        return out
