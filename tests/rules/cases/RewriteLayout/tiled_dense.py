# Dense with bias, W (out, in) layout-free; tiled by the script, the reduction decomposed.
@T.prim_func
def main(X: T.Buffer((32, 64), "float32"), W: T.Buffer((48, 64), "float32"), bias: T.Buffer((48,), "float32"), Y: T.Buffer((32, 48), "float32")):
    T.func_attr({"layout_free_buffers": [1, 2]})
    D = T.alloc_buffer((32, 48))
    for n, o, k in T.grid(32, 48, 64):
        with T.block("D"):
            vn, vo, vk = T.axis.remap("SSR", [n, o, k])
            with T.init():
                D[vn, vo] = T.float32(0)
            D[vn, vo] = D[vn, vo] + X[vn, vk] * W[vo, vk]
    for n, o in T.grid(32, 48):
        with T.block("Y"):
            vn, vo = T.axis.remap("SS", [n, o])
            Y[vn, vo] = D[vn, vo] + bias[vo]
