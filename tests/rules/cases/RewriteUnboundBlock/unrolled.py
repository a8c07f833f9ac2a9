# Four serial spatial loops, then unrolled loops (spatial, then reduction):
# only the serial loops are fused (1280 iterations: 2 blocks of 1024
# threads, the last predicated); the unrolled loops stay inside.
@T.prim_func
def main(G: T.Buffer((3, 3, 20, 64), "float32"), O: T.Buffer((2, 2, 20, 64), "float32")):
    for i2_0, i3_0, i2_1, i3_1 in T.grid(10, 4, 2, 16):
        for i0 in T.unroll(2):
            for i1 in T.unroll(2):
                for i4 in T.unroll(3):
                    for i5 in T.unroll(3):
                        with T.block("O"):
                            vh, vw = T.axis.remap("SS", [i0, i1])
                            p = T.axis.spatial(20, i2_0 * 2 + i2_1)
                            co = T.axis.spatial(64, i3_0 * 16 + i3_1)
                            r_a, r_b = T.axis.remap("RR", [i4, i5])
                            with T.init():
                                O[vh, vw, p, co] = T.float32(0)
                            O[vh, vw, p, co] = O[vh, vw, p, co] + G[r_a, r_b, p, co]
