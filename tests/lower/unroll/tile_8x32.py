# An 8x32 register tile of a 16x64x32 matmul (the schedule in tile_8x32.sch):
# under max step 64 each k iteration holds 8 rows of one 32-lane vector
# multiply-add, so the 8-row loop unrolls (8 x 1 = 8 steps) while k (32 x 8
# = 256 steps) stays a loop; likewise the initialization's rows. Lowered
# with vectorize 0 the 32 lanes are 32 scalar steps: the lane loops unroll
# (32 <= 64), the row loops (8 x 32 = 256) stay loops.
@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((32, 64), "float32"), C: T.Buffer((16, 64), "float32")):
    for i, j, k in T.grid(16, 64, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
