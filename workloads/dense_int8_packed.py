# An int8 dense layer with its weight packed for the x86 dot_16x4
# intrinsics: C[i, j] = sum_k A[i, k] * W[j, k] with A uint8 (activations),
# the weight int8 laid out [N / 16, K / 4, 16, 4] (TVM's dense_vnni layout:
# 16 output columns x 4 reduction steps contiguous), int32 accumulation.
@T.prim_func
def main(A: T.Buffer((128, 128), "uint8"), W: T.Buffer((8, 32, 16, 4), "int8"),
         C: T.Buffer((128, 128), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast(
                "int32", W[vj // 16, vk // 4, vj % 16, vk % 4])
