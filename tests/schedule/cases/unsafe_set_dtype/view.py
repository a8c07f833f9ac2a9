# An int32 intermediate written and read through match_buffer views.
@T.prim_func
def main(A: T.Buffer((8, 4), "int32"), B: T.Buffer((8, 4), "int32")):
    Tmp = T.alloc_buffer((8, 4), "int32")
    for i, j in T.grid(8, 4):
        with T.block("T"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(Tmp[vi, vj])
            V = T.match_buffer(Tmp[vi, vj], (), "int32")
            V[()] = A[vi, vj] - 5
    for i, j in T.grid(8, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(Tmp[vi, vj])
            T.writes(B[vi, vj])
            W = T.match_buffer(Tmp[vi, vj], (), "int32")
            B[vi, vj] = W[()] * 2
