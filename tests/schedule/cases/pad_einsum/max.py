# Row maximum over 12 columns.
@T.prim_func
def main(A: T.Buffer((4, 12), "float32"), M: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 12):
        with T.block("M"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                M[vi] = T.float32(-3.0e38)
            M[vi] = T.max(M[vi], A[vi, vk])
