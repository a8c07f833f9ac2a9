# Loops of extent 1 without annotations are gone before the rule applies
# (as in TVM's LowerOpaqueBlock): they neither count as unrolled nesting nor
# stay loops. Under max step 8, j (2 steps) and i (4 x 2 = 8) unroll through
# the unit loops u and w.
@T.prim_func
def main(A: T.Buffer((4, 2), "float32"), B: T.Buffer((4, 2), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 8, "pragma_unroll_explicit": 1}):
        for u in range(1):
            for j in range(2):
                for w in T.parallel(1):
                    with T.block("B"):
                        vi = T.axis.spatial(4, i + u)
                        vj = T.axis.spatial(2, j + w)
                        B[vi, vj] = A[vi, vj] + T.float32(1)
