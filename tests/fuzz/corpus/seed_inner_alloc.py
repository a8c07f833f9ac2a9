# An alloc_buffer inside a non-root block (a per-row scratch buffer) and a block-local "local" accumulator; computes each row's maximum minus its minimum, 8x32 float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 32), "float32"), R: T.Buffer((8,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(8):
        with T.block("row"):
            v_i = T.axis.spatial(8, i)
            T.reads(A[v_i, 0:32])
            T.writes(R[v_i])
            hi = T.alloc_buffer((1,), scope="local")
            lo = T.alloc_buffer((1,), scope="local")
            for k in range(32):
                with T.block("hi_lo"):
                    v_k = T.axis.reduce(32, k)
                    T.reads(A[v_i, v_k])
                    T.writes(hi[0], lo[0])
                    with T.init():
                        hi[0] = T.float32(-3.4028234663852886e+38)
                        lo[0] = T.float32(3.4028234663852886e+38)
                    hi[0] = T.max(hi[0], A[v_i, v_k])
                    lo[0] = T.min(lo[0], A[v_i, v_k])
            with T.block("range"):
                T.reads(hi[0], lo[0])
                T.writes(R[v_i])
                R[v_i] = hi[0] - lo[0]
