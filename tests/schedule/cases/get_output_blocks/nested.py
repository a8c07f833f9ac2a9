# A blockized copy: the outer block and the block inside it both write B.
@T.prim_func
def main(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8, 4), "float32")):
    for i in range(8):
        with T.block("B_o"):
            vi = T.axis.spatial(8, i)
            T.reads(A[vi, 0:4])
            T.writes(B[vi, 0:4])
            Loc = T.alloc_buffer((4,))
            for j in range(4):
                with T.block("L"):
                    vj = T.axis.spatial(4, j)
                    Loc[vj] = A[vi, vj]
            for j in range(4):
                with T.block("B"):
                    vj = T.axis.spatial(4, j)
                    B[vi, vj] = Loc[vj]
