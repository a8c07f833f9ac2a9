# A reduction into a temporary of 10 rows stored in blocks of 4: the init
# and the update write 0 into the padding (pad_value as a T. expression).
@T.prim_func
def mean_rows(A: T.Buffer((10, 8), "float32"), C: T.Buffer((10,), "float32")):
    B = T.alloc_buffer((10,))
    for i, k in T.grid(10, 8):
        with T.block("sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
    for i in range(10):
        with T.block("mean"):
            vi = T.axis.remap("S", [i])
            C[vi] = B[vi] * T.float32(0.125)
