# Double precision: the Euclidean norm of each row of a 16x64 float64 matrix, sqrt(sum x^2).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 64), "float64"), N: T.Buffer((16,), "float64")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    sq = T.alloc_buffer((16,), "float64")
    for i, k in T.grid(16, 64):
        with T.block("sq"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(A[v_i, v_k])
            T.writes(sq[v_i])
            with T.init():
                sq[v_i] = T.float64(0)
            sq[v_i] = sq[v_i] + A[v_i, v_k] * A[v_i, v_k]
    for i in range(16):
        with T.block("N"):
            v_i = T.axis.spatial(16, i)
            T.reads(sq[v_i])
            T.writes(N[v_i])
            N[v_i] = T.sqrt(sq[v_i])
