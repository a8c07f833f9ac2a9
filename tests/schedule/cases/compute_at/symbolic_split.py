# B = A + 1, C = B * 2 over a symbolic length n * 16.
# from tvm.script import tir as T

@T.prim_func
def main(a: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (n * 16,))
    C = T.match_buffer(c, (n * 16,))
    B = T.alloc_buffer((n * 16,))
    for i in range(n * 16):
        with T.block("B"):
            vi = T.axis.spatial(n * 16, i)
            B[vi] = A[vi] + T.float32(1)
    for i in range(n * 16):
        with T.block("C"):
            vi = T.axis.spatial(n * 16, i)
            C[vi] = B[vi] * T.float32(2)
