# layout_free_buffers names a parameter that does not exist.
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"layout_free_buffers": [2]})
    for i in range(16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = A[vi]
