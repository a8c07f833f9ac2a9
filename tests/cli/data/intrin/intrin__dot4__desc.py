# Intrinsic dot4: C[()] += A[0:4] . B[0:4].
@T.prim_func
def dot4_desc(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (), offset_factor=1)
    with T.block("root"):
        T.reads(C[()], A[0:4], B[0:4])
        T.writes(C[()])
        for k in range(4):
            with T.block("dot"):
                vk = T.axis.remap("R", [k])
                C[()] = C[()] + A[vk] * B[vk]
