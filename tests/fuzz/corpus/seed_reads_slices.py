# Read/write regions given as slices and a block with a loop inside it: each block computes a whole 16-wide row of B[i, :] = A[i, 0:16] + A[i, 16:32] (8x32 -> 8x16 float32).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 32), "float32"), B: T.Buffer((8, 16), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(8):
        with T.block("row"):
            v_i = T.axis.spatial(8, i)
            T.reads(A[v_i, 0:32])
            T.writes(B[v_i, 0:16])
            for j in range(16):
                B[v_i, j] = A[v_i, j] + A[v_i, j + 16]
