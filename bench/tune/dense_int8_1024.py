# The 1024 int8 dense layer of `./tessel bench auto --only lowp`, beside
# oneDNN's u8 x s8 -> s32 matmul: C[i, j] = sum_k A[i, k] * W[j, k], A uint8,
# the weight int8 packed [N / 16, K / 4, 16, 4] (TVM's dense_vnni layout, the
# dot_16x4 intrinsics' operand), int32 accumulation.
@T.prim_func
def main(A: T.Buffer((1024, 1024), "uint8"), W: T.Buffer((64, 256, 16, 4), "int8"),
         C: T.Buffer((1024, 1024), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(1024, 1024, 1024):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast(
                "int32", W[vj // 16, vk // 4, vj % 16, vk % 4])
