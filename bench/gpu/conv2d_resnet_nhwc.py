# A ResNet-50 layer (conv2_x, 3x3): NHWC float16 input 8x58x58x64 (padded by 1), 3x3x64x64 (HWIO) weights, stride 1, products and sums in float32, 8x56x56x64 output: an implicit GEMM of M = 8*56*56, N = 64, K = 3*3*64 on tensor cores (cuBLAS has no convolution; the reference is cublasGemmEx of that M, N, K).
# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((8, 58, 58, 64), "float16"), W: T.Buffer((3, 3, 64, 64), "float16"), Y: T.Buffer((8, 56, 56, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for n, h, w, co, rh, rw, rc in T.grid(8, 56, 56, 64, 3, 3, 64):
        with T.block("conv"):
            v_n, v_h, v_w, v_co, v_rh, v_rw, v_rc = T.axis.remap("SSSSRRR", [n, h, w, co, rh, rw, rc])
            T.reads(X[v_n, v_h + v_rh, v_w + v_rw, v_rc], W[v_rh, v_rw, v_rc, v_co])
            T.writes(Y[v_n, v_h, v_w, v_co])
            with T.init():
                Y[v_n, v_h, v_w, v_co] = T.float32(0)
            Y[v_n, v_h, v_w, v_co] = Y[v_n, v_h, v_w, v_co] + T.Cast("float32", X[v_n, v_h + v_rh, v_w + v_rw, v_rc]) * T.Cast("float32", W[v_rh, v_rw, v_rc, v_co])
