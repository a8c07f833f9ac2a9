# B[vi // 2] is stored twice per element (vi and vi + 1): the store map is
# not bijective, so loads of B cannot be solved for vi.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(32):
        with T.block("B"):
            vi = T.axis.spatial(32, i)
            B[vi // 2] = A[vi]
    for i in range(16):
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] + T.float32(1)
