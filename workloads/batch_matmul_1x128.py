# Batch matmul Z[b, i, j] = sum_k X[b, i, k] * Y[b, k, j], batch 1, 128x128x128:
# the GMM workload of MetaSchedule's CPU design-space tests, written here in
# TVMScript (names as its TE definition gives them).
# from tvm.script import tir as T

@T.prim_func
def main(X: T.Buffer((1, 128, 128), "float32"), Y: T.Buffer((1, 128, 128), "float32"),
         Z: T.Buffer((1, 128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for b, i, j, k in T.grid(1, 128, 128, 128):
        with T.block("Z"):
            v_b, v_i, v_j, v_k = T.axis.remap("SSSR", [b, i, j, k])
            T.reads(X[v_b, v_i, v_k], Y[v_b, v_k, v_j])
            T.writes(Z[v_b, v_i, v_j])
            with T.init():
                Z[v_b, v_i, v_j] = T.float32(0)
            Z[v_b, v_i, v_j] = Z[v_b, v_i, v_j] + X[v_b, v_i, v_k] * Y[v_b, v_k, v_j]
