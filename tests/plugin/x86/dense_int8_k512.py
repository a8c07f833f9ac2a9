# The int8 dense layer of workloads/dense_int8_packed.py with K = 512, so
# that the AMX intrinsics of 256 reduction steps tile it (twice).
@T.prim_func
def main(A: T.Buffer((64, 512), "uint8"), W: T.Buffer((4, 128, 16, 4), "int8"),
         C: T.Buffer((64, 64), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(64, 64, 512):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast(
                "int32", W[vj // 16, vk // 4, vj % 16, vk % 4])
