# Batched matmul: a non-dividing split of b with preserve_unit_iters=False
# leaves unit loops that only the T.where mentions (from the random tests).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8, 8), "float32"), B: T.Buffer((4, 8, 8), "float32"), C: T.Buffer((4, 8, 8), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for b, i, j, k in T.grid(4, 8, 8, 8):
        with T.block("C"):
            v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
            T.reads(A[v_b, v_i, v_k], B[v_b, v_k, v_j])
            T.writes(C[v_b, v_i, v_j])
            with T.init():
                C[v_b, v_i, v_j] = T.float32(0)
            C[v_b, v_i, v_j] = C[v_b, v_i, v_j] + A[v_b, v_i, v_k] * B[v_b, v_k, v_j]
