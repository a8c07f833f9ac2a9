# The bfloat16 dense layer of workloads/dense_bf16_packed.py with K = 256,
# so that the AMX intrinsics of 128 reduction steps tile it (twice).
@T.prim_func
def main(A: T.Buffer((64, 256), "bfloat16"), W: T.Buffer((4, 128, 16, 2), "bfloat16"),
         C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(64, 64, 256):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast(
                "float32", W[vj // 16, vk // 2, vj % 16, vk % 2])
