# Matrix transpose: B[j, i] = A[i, j] for a 64x128 float32 matrix.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 128), "float32"), B: T.Buffer((128, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for ax0, ax1 in T.grid(128, 64):
        with T.block("T_transpose"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax1, v_ax0])
            T.writes(B[v_ax0, v_ax1])
            B[v_ax0, v_ax1] = A[v_ax1, v_ax0]
