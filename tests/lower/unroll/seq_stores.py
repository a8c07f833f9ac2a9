# Steps add up over a sequence: under max step 16 the j loop holds three
# stores (2 x 3 = 6 steps, unrolled) and i would be 4 x 6 = 24 steps, so it
# stays a loop (counting the largest element instead of the sum, 4 x 2 = 8,
# would unroll it). The second nest starts counting from zero: 4 x 2 = 8
# steps, both loops unroll.
@T.prim_func
def main(A: T.Buffer((4, 2), "float32"), B: T.Buffer((4, 2), "float32"), C: T.Buffer((4, 2), "float32"), D: T.Buffer((4, 2), "float32"), E: T.Buffer((4, 2), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        for j in range(2):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2)
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = A[vi, vj] - T.float32(3)
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        for j in range(2):
            with T.block("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = B[vi, vj] + C[vi, vj]
