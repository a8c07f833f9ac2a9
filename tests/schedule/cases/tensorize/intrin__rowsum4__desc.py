# Intrinsic rowsum4 (registered for the cases of this folder): C[i] += the
# sum of row i of a 4x4 tile. Indices are int32; the offsets are variables
# (offset_factor without elem_offset), as hardware intrinsics declare them.
@T.prim_func
def rowsum4_desc(a: T.handle, c: T.handle):
    A = T.match_buffer(a, (4, 4), offset_factor=1)
    C = T.match_buffer(c, (4,), offset_factor=1)
    with T.block("root"):
        T.reads(C[0:4], A[0:4, 0:4])
        T.writes(C[0:4])
        for i, k in T.grid(4, 4):
            with T.block("acc"):
                vi, vk = T.axis.remap("SR", [i, k])
                C[vi] = C[vi] + A[vi, vk]
