# Elementwise addition C = A + B of two 128x128 float32 matrices.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for ax0, ax1 in T.grid(128, 128):
        with T.block("T_add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax0, v_ax1], B[v_ax0, v_ax1])
            T.writes(C[v_ax0, v_ax1])
            C[v_ax0, v_ax1] = A[v_ax0, v_ax1] + B[v_ax0, v_ax1]
