# The 1024 bfloat16 dense layer of `./tessel bench auto --only lowp`, beside
# oneDNN's bf16 x bf16 -> f32 matmul: C[i, j] = sum_k A[i, k] * W[j, k] in
# float32, the weight packed [N / 16, K / 2, 16, 2] (the operand of
# dot_16x2_bf16_avx512).
@T.prim_func
def main(A: T.Buffer((1024, 1024), "bfloat16"), W: T.Buffer((64, 512, 16, 2), "bfloat16"),
         C: T.Buffer((1024, 1024), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(1024, 1024, 1024):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast(
                "float32", W[vj // 16, vk // 2, vj % 16, vk % 2])
