# A block with one read and one write counts as a cache read of the weight
# (as in TVM): the chain ends at Y, which no block reads, so nothing is packed.
@T.prim_func
def main(W: T.Buffer((16, 4), "float32"), Y: T.Buffer((16, 4), "float32")):
    T.func_attr({"layout_free_buffers": [0]})
    for i, j in T.grid(16, 4):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = W[vi, vj] * T.float32(2)
