# int64 loop variables, extents and indices throughout (as TVM prints after shape inference in int64): B[i, j] = A[j, i] * 2 for a 24x40 float32 matrix.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((T.int64(24), T.int64(40)), "float32"), B: T.Buffer((T.int64(40), T.int64(24)), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for ax0, ax1 in T.grid(T.int64(40), T.int64(24)):
        with T.block("B"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax1, v_ax0])
            T.writes(B[v_ax0, v_ax1])
            B[v_ax0, v_ax1] = A[v_ax1, v_ax0] * T.float32(2)
