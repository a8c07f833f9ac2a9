# Row sum, row max and column min of a 64x128 float32 matrix (three reduction blocks).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 128), "float32"), row_sum: T.Buffer((64,), "float32"), row_max: T.Buffer((64,), "float32"), col_min: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, k in T.grid(64, 128):
        with T.block("row_sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(row_sum[vi])
            with T.init():
                row_sum[vi] = T.float32(0)
            row_sum[vi] = row_sum[vi] + A[vi, vk]
    for i, k in T.grid(64, 128):
        with T.block("row_max"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(row_max[vi])
            with T.init():
                row_max[vi] = T.float32(-3.4028234663852886e+38)
            row_max[vi] = T.max(row_max[vi], A[vi, vk])
    for j, k in T.grid(128, 64):
        with T.block("col_min"):
            vj, vk = T.axis.remap("SR", [j, k])
            T.reads(A[vk, vj])
            T.writes(col_min[vj])
            with T.init():
                col_min[vj] = T.float32(3.4028234663852886e+38)
            col_min[vj] = T.min(col_min[vj], A[vk, vj])
