# More iterations (288 x 32 = 9216) than max_threadblocks (4 here) x 1024
# threads: split [None, 4, 1024], blocks and threads outermost, the 3 rounds
# serial inside, the last one predicated.
@T.prim_func
def main(P: T.Buffer((4, 32, 72), "float32"), R: T.Buffer((32, 288), "float32")):
    for i0_i1_fused_0, i0_i1_fused_1 in T.grid(288, 32):
        with T.block("R"):
            ax0 = T.axis.spatial(32, (i0_i1_fused_0 * 32 + i0_i1_fused_1) // 288)
            ax1 = T.axis.spatial(288, (i0_i1_fused_0 * 32 + i0_i1_fused_1) % 288)
            R[ax0, ax1] = P[ax1 // 72, ax0, ax1 % 72]
