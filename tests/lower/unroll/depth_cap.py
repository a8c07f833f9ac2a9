# The unrolled nesting is capped (TVM's auto_max_depth, 8): under max step
# 1024, ten nested loops of extent 2 around one store would all fit
# (2^10 = 1024 steps), but the outermost has nine unrolled loops inside,
# more than 8, and stays a loop; the nine inner ones unroll.
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    for i0 in T.serial(2, annotations={"pragma_auto_unroll_max_step": 1024, "pragma_unroll_explicit": 1}):
        for i1 in range(2):
            for i2 in range(2):
                for i3 in range(2):
                    for i4 in range(2):
                        for i5 in range(2):
                            for i6 in range(2):
                                for i7 in range(2):
                                    for i8 in range(2):
                                        for i9 in range(2):
                                            with T.block("B"):
                                                v = T.axis.spatial(1024, i0 * 512 + i1 * 256 + i2 * 128 + i3 * 64 + i4 * 32 + i5 * 16 + i6 * 8 + i7 * 4 + i8 * 2 + i9)
                                                B[v] = A[v] * T.float32(2)
