# Tensor-core matrix multiplication with B transposed: C[i, j] = sum_k A[i, k] * B[j, k], float16 A[128, 128] and B[128, 128], products and sums in float32 C (examples/gpu/matmul_mma_trans_b.sch tensorizes it with the mma.sync intrinsics).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128, 128), "float16"), B: T.Buffer((128, 128), "float16"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_j, v_k])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0)
            C[v_i, v_j] = C[v_i, v_j] + T.Cast("float32", A[v_i, v_k]) * T.Cast("float32", B[v_j, v_k])
