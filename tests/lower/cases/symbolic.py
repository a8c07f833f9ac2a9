# Symbolic row count: the flat parameter sizes are products, n is a size
# variable passed after the parameters.
@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 8))
    B = T.match_buffer(b, (n,))
    for i, k in T.grid(n, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, k] * A[vi, k]
