# Every loop kind: range with a start, T.serial with annotations, T.parallel, T.vectorized, T.unroll; computes B = A + 1 on a 16x64 float32 matrix in pieces.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in T.parallel(8):
        for j_0 in T.serial(16, annotations={"software_pipeline_stage": [0, 0, 1]}):
            for j_1 in T.vectorized(4):
                with T.block("B_top"):
                    v_i = T.axis.spatial(16, i)
                    v_j = T.axis.spatial(64, j_0 * 4 + j_1)
                    T.reads(A[v_i, v_j])
                    T.writes(B[v_i, v_j])
                    B[v_i, v_j] = A[v_i, v_j] + T.float32(1)
    for i in range(8, 16):
        for j_0 in T.unroll(2):
            for j_1 in T.serial(32):
                with T.block("B_bottom"):
                    v_i = T.axis.spatial(16, i)
                    v_j = T.axis.spatial(64, j_0 * 32 + j_1)
                    T.reads(A[v_i, v_j])
                    T.writes(B[v_i, v_j])
                    B[v_i, v_j] = A[v_i, v_j] + T.float32(1)
