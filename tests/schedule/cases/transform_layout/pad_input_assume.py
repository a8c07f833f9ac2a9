# An input padded by transform_layout: the caller fills the padding, and a
# block first in the function asserts the pad value there with T.assume.
@T.prim_func
def main(X: T.Buffer((10, 6), "float32"), Y: T.Buffer((10, 6), "float32")):
    for i, j in T.grid(10, 6):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = X[vi, vj] * T.float32(3)
