# A weight with a unit dimension: the packed buffer drops it.
@T.prim_func
def main(W: T.Buffer((16, 1), "float32"), X: T.Buffer((16,), "float32"), Y: T.Buffer((16,), "float32")):
    T.func_attr({"layout_free_buffers": [0]})
    for i, j in T.grid(16, 1):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi] = W[vi, vj] * X[vi]
