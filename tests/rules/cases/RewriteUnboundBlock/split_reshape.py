# A transposing reshape whose loops were already split (96 x 32): the two
# loops are fused again and split into 3 blocks of 1024 threads.
@T.prim_func
def main(P: T.Buffer((4, 32, 24), "float32"), R: T.Buffer((32, 96), "float32")):
    for i0_i1_fused_0, i0_i1_fused_1 in T.grid(96, 32):
        with T.block("R"):
            ax0 = T.axis.spatial(32, (i0_i1_fused_0 * 32 + i0_i1_fused_1) // 96)
            ax1 = T.axis.spatial(96, (i0_i1_fused_0 * 32 + i0_i1_fused_1) % 96)
            R[ax0, ax1] = P[ax1 // 24, ax0, ax1 % 24]
