# Global average pooling, NCHW: 1x32x7x7 -> 1x32x1x1 (sum over the 7x7 window times 1/49), float32.
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((1, 32, 7, 7), "float32"), out: T.Buffer((1, 32, 1, 1), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    sum_buf = T.alloc_buffer((1, 32, 1, 1))
    for n, c, h, w, rh, rw in T.grid(1, 32, 1, 1, 7, 7):
        with T.block("sum"):
            v_n, v_c, v_h, v_w, v_rh, v_rw = T.axis.remap("SSSSRR", [n, c, h, w, rh, rw])
            T.reads(data[v_n, v_c, v_h * 7 + v_rh, v_w * 7 + v_rw])
            T.writes(sum_buf[v_n, v_c, v_h, v_w])
            with T.init():
                sum_buf[v_n, v_c, v_h, v_w] = T.float32(0)
            sum_buf[v_n, v_c, v_h, v_w] = sum_buf[v_n, v_c, v_h, v_w] + data[v_n, v_c, v_h * 7 + v_rh, v_w * 7 + v_rw]
    for n, c, h, w in T.grid(1, 32, 1, 1):
        with T.block("avg"):
            v_n, v_c, v_h, v_w = T.axis.remap("SSSS", [n, c, h, w])
            T.reads(sum_buf[v_n, v_c, v_h, v_w])
            T.writes(out[v_n, v_c, v_h, v_w])
            out[v_n, v_c, v_h, v_w] = sum_buf[v_n, v_c, v_h, v_w] * T.float32(0.020408163265306121)
