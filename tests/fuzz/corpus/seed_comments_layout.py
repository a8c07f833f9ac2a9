# Comments and blank lines everywhere the layout allows them; computes B = A * A + 1 for 16x16 float32 (comment-only lines, trailing comments, blank lines inside blocks).
# from tvm.script import tir as T


# a comment between the header and the decorator
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"),  # the input
         B: T.Buffer((16, 16), "float32")):  # the output
    # a comment before the attributes
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})

    # with T.block("root"):
    for i, j in T.grid(16, 16):  # a trailing comment on a loop

        # a comment before a block
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])  # remap
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])

            B[vi, vj] = A[vi, vj] * A[vi, vj] + T.float32(1)  # square plus one
    # a comment at the end of the body

# a comment at the end of the file
