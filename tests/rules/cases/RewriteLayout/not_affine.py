# The weight is read at a square index: no suggestion, the program is left alone.
@T.prim_func
def main(W: T.Buffer((64,), "float32"), idx: T.Buffer((8,), "int32"), Y: T.Buffer((8,), "float32")):
    T.func_attr({"layout_free_buffers": [0]})
    for i in range(8):
        with T.block("Y"):
            vi = T.axis.spatial(8, i)
            Y[vi] = W[vi * vi] + T.Cast("float32", idx[vi])
