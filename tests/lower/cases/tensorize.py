# Tensorized with a 1-D intrinsic: the match_buffer views become accesses
# to the buffers they alias (region offsets added).
@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
    for i0, i1 in T.grid(8, 4):
        with T.block("C"):
            vi = T.axis.spatial(32, i0 * 4 + i1)
            T.reads(C[vi], A[vi], B[vi])
            T.writes(C[vi])
            C[vi] = C[vi] + A[vi] * B[vi]
