# 2x2 max pooling with stride 2, NCHW: 1x16x14x14 -> 1x16x7x7, float32.
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 16, 14, 14), "float32"), pool_max: T.Buffer((1, 16, 7, 7), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(1, 16, 7, 7, 2, 2):
        with T.block("pool_max"):
            v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
            T.reads(data[v_ax0, v_ax1, v_ax2 * 2 + v_rv0, v_ax3 * 2 + v_rv1])
            T.writes(pool_max[v_ax0, v_ax1, v_ax2, v_ax3])
            with T.init():
                pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(-3.4028234663852886e+38)
            pool_max[v_ax0, v_ax1, v_ax2, v_ax3] = T.max(pool_max[v_ax0, v_ax1, v_ax2, v_ax3], data[v_ax0, v_ax1, v_ax2 * 2 + v_rv0, v_ax3 * 2 + v_rv1])
