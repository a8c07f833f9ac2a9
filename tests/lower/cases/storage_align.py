# storage_align on both axes of an allocated buffer: its strides are padded
# (last axis stride 4: 4 mod 16; row stride 130: 2 mod 32) and it flattens
# with them.

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    B = T.alloc_buffer((32, 32))
    C = T.alloc_buffer((32, 32))
    for i, j in T.grid(32, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(32, 32):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
    for i, j in T.grid(32, 32):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * T.float32(3)
