# 2-D convolution, NHWC, float16 input 1x16x16x16 (already padded) and 3x3x16x32 (HWIO) weights, stride 1, products and sums in float32: MultiLevelTilingTensorCore maps n, h, w onto the WMMA tile's m and rh, rw, rc onto its k (an implicit GEMM); m = 14 * 14 = 196 is padded to 208 (pad_einsum).
# from tvm.script import tir as T

@T.prim_func
def main(inputs: T.Buffer((1, 16, 16, 16), "float16"), weight: T.Buffer((3, 3, 16, 32), "float16"), conv: T.Buffer((1, 14, 14, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for n, h, w, co, rh, rw, rc in T.grid(1, 14, 14, 32, 3, 3, 16):
        with T.block("conv"):
            v_n, v_h, v_w, v_co, v_rh, v_rw, v_rc = T.axis.remap("SSSSRRR", [n, h, w, co, rh, rw, rc])
            T.reads(inputs[v_n, v_h + v_rh, v_w + v_rw, v_rc], weight[v_rh, v_rw, v_rc, v_co])
            T.writes(conv[v_n, v_h, v_w, v_co])
            with T.init():
                conv[v_n, v_h, v_w, v_co] = T.float32(0)
            conv[v_n, v_h, v_w, v_co] = conv[v_n, v_h, v_w, v_co] + T.Cast("float32", inputs[v_n, v_h + v_rh, v_w + v_rw, v_rc]) * T.Cast("float32", weight[v_rh, v_rw, v_rc, v_co])
