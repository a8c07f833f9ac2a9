# The weight already goes through a cache read: the chain's buffer gets the layout.
@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    T.func_attr({"layout_free_buffers": [1]})
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
