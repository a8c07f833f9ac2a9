# Row sum with the reduction loop outermost (TVM test_blockize_init_loops).
@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32,), "float32")):
    for k, i in T.grid(32, 32):
        with T.block("B"):
            vk, vi = T.axis.remap("RS", [k, i])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
