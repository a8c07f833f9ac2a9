# dot4 as an external function taking each buffer's storage and offset.
@T.prim_func
def dot4_impl(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (), offset_factor=1)
    with T.block("root"):
        T.reads(C[()], A[0:4], B[0:4])
        T.writes(C[()])
        T.evaluate(T.call_extern("dot4", C.data, C.elem_offset, A.data, A.elem_offset,
                                 B.data, B.elem_offset, dtype="int32"))
