# Row softmax of a 256x256 float32 matrix with exp inlined into its two
# users: row max, row sum of exp(x - max), normalize; both reductions feed
# the last block (MetaSchedule's softmax_mn after inlining).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256, 256), "float32"), Y: T.Buffer((256, 256), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    row_max = T.alloc_buffer((256,))
    row_sum = T.alloc_buffer((256,))
    for i, k in T.grid(256, 256):
        with T.block("row_max"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(row_max[vi])
            with T.init():
                row_max[vi] = T.float32(-3.4028234663852886e+38)
            row_max[vi] = T.max(row_max[vi], A[vi, vk])
    for i, k in T.grid(256, 256):
        with T.block("row_sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk], row_max[vi])
            T.writes(row_sum[vi])
            with T.init():
                row_sum[vi] = T.float32(0)
            row_sum[vi] = row_sum[vi] + T.exp(A[vi, vk] - row_max[vi])
    for i, j in T.grid(256, 256):
        with T.block("norm"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], row_max[vi], row_sum[vi])
            T.writes(Y[vi, vj])
            Y[vi, vj] = T.exp(A[vi, vj] - row_max[vi]) / row_sum[vi]
