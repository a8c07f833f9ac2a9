# rfactor into a 0-dimensional output: the scalar buffer flattens to one
# element.
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((), "float32")):
    for k in range(64):
        with T.block("B"):
            vk = T.axis.reduce(64, k)
            with T.init():
                B[()] = T.float32(0)
            B[()] = B[()] + A[vk]
