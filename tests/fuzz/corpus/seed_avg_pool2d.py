# 3x3 average pooling, stride 1, zero padding 1 (padding counted in the average), NCHW: 1x8x14x14 -> 1x8x14x14, float32.
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 8, 14, 14), "float32"), pool_avg: T.Buffer((1, 8, 14, 14), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    pad_temp = T.alloc_buffer((1, 8, 16, 16))
    pool_sum = T.alloc_buffer((1, 8, 14, 14))
    for ax0, ax1, ax2, ax3 in T.grid(1, 8, 16, 16):
        with T.block("pad_temp"):
            v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
            T.reads(data[v_ax0, v_ax1, v_ax2 - 1, v_ax3 - 1])
            T.writes(pad_temp[v_ax0, v_ax1, v_ax2, v_ax3])
            pad_temp[v_ax0, v_ax1, v_ax2, v_ax3] = T.if_then_else(1 <= v_ax2 and v_ax2 < 15 and 1 <= v_ax3 and v_ax3 < 15, data[v_ax0, v_ax1, v_ax2 - 1, v_ax3 - 1], T.float32(0))
    for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(1, 8, 14, 14, 3, 3):
        with T.block("pool_sum"):
            v_ax0, v_ax1, v_ax2, v_ax3, v_rv0, v_rv1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
            T.reads(pad_temp[v_ax0, v_ax1, v_ax2 + v_rv0, v_ax3 + v_rv1])
            T.writes(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
            with T.init():
                pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = T.float32(0)
            pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] + pad_temp[v_ax0, v_ax1, v_ax2 + v_rv0, v_ax3 + v_rv1]
    for ax0, ax1, ax2, ax3 in T.grid(1, 8, 14, 14):
        with T.block("pool_avg"):
            v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
            T.reads(pool_sum[v_ax0, v_ax1, v_ax2, v_ax3])
            T.writes(pool_avg[v_ax0, v_ax1, v_ax2, v_ax3])
            pool_avg[v_ax0, v_ax1, v_ax2, v_ax3] = pool_sum[v_ax0, v_ax1, v_ax2, v_ax3] / T.float32(9)
