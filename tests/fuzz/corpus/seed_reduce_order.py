# Reductions with the reduce loop outside the spatial loop and with two reduce axes: column sums (k outer) and the total sum of a 24x16 int32 matrix.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((24, 16), "int32"), colsum: T.Buffer((16,), "int32"), total: T.Buffer((1,), "int64")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for k, j in T.grid(24, 16):
        with T.block("colsum"):
            v_k, v_j = T.axis.remap("RS", [k, j])
            T.reads(A[v_k, v_j])
            T.writes(colsum[v_j])
            with T.init():
                colsum[v_j] = 0
            colsum[v_j] = colsum[v_j] + A[v_k, v_j]
    for z, i, j in T.grid(1, 24, 16):
        with T.block("total"):
            v_z, v_i, v_j = T.axis.remap("SRR", [z, i, j])
            T.reads(A[v_i, v_j])
            T.writes(total[v_z])
            with T.init():
                total[v_z] = T.int64(0)
            total[v_z] = total[v_z] + T.Cast("int64", A[v_i, v_j])
