# Layer normalization over the last axis of a 32x64 float32 matrix: (x - mean) * rsqrt(var + 1e-5) * gamma + beta, var = E[x^2] - E[x]^2.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 64), "float32"), gamma: T.Buffer((64,), "float32"), beta: T.Buffer((64,), "float32"), T_layer_norm: T.Buffer((32, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    A_red_temp_v0 = T.alloc_buffer((32,))
    A_red_temp_v1 = T.alloc_buffer((32,))
    for ax0, k1 in T.grid(32, 64):
        with T.block("A_red_temp"):
            v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
            T.reads(A[v_ax0, v_k1])
            T.writes(A_red_temp_v0[v_ax0], A_red_temp_v1[v_ax0])
            with T.init():
                A_red_temp_v0[v_ax0] = T.float32(0)
                A_red_temp_v1[v_ax0] = T.float32(0)
            A_red_temp_v0[v_ax0] = A_red_temp_v0[v_ax0] + A[v_ax0, v_k1]
            A_red_temp_v1[v_ax0] = A_red_temp_v1[v_ax0] + A[v_ax0, v_k1] * A[v_ax0, v_k1]
    for ax0, ax1 in T.grid(32, 64):
        with T.block("T_layer_norm"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax0, v_ax1], A_red_temp_v0[v_ax0], A_red_temp_v1[v_ax0], gamma[v_ax1], beta[v_ax1])
            T.writes(T_layer_norm[v_ax0, v_ax1])
            T_layer_norm[v_ax0, v_ax1] = (A[v_ax0, v_ax1] - A_red_temp_v0[v_ax0] * T.float32(0.015625)) * T.rsqrt(A_red_temp_v1[v_ax0] * T.float32(0.015625) - A_red_temp_v0[v_ax0] * T.float32(0.015625) * (A_red_temp_v0[v_ax0] * T.float32(0.015625)) + T.float32(1.0000000000000001e-05)) * gamma[v_ax1] + beta[v_ax1]
