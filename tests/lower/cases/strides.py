# Declared strides: an allocation padded to 8 elements per row keeps its
# shape (no compaction) and flattens with its strides; a view with
# symbolic strides and elem_offset, bound by the region it matches, reads
# the parameter (the view's variables become the parameter's strides and
# the region's offset).
@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
    B = T.alloc_buffer((4, 4), strides=(8, 1))
    for i, j in T.grid(4, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i0 in range(2):
        with T.block("C"):
            vi0 = T.axis.spatial(2, i0)
            T.reads(A[vi0 * 2:vi0 * 2 + 2, 0:4], B[vi0 * 2:vi0 * 2 + 2, 0:4])
            T.writes(C[vi0 * 2:vi0 * 2 + 2, 0:4])
            s0 = T.int32()
            s1 = T.int32()
            off = T.int32()
            Asub = T.match_buffer(A[vi0 * 2:vi0 * 2 + 2, 0:4], (2, 4), strides=(s0, s1), elem_offset=off)
            for i, j in T.grid(2, 4):
                C[vi0 * 2 + i, j] = Asub[i, j] + B[vi0 * 2 + i, j] + T.Cast("float32", s0 + off)
