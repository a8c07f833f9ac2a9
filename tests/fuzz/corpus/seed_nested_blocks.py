# Nested blocks (as after blockize): an outer block per 16-row tile containing an inner reduction block; computes row sums of a 64x32 float32 matrix.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0 in range(4):
        with T.block("B_o"):
            v_i_o = T.axis.spatial(4, i_0)
            T.reads(A[v_i_o * 16:v_i_o * 16 + 16, 0:32])
            T.writes(B[v_i_o * 16:v_i_o * 16 + 16])
            for i_1, k in T.grid(16, 32):
                with T.block("B"):
                    v_i_i = T.axis.spatial(16, i_1)
                    v_k = T.axis.reduce(32, k)
                    T.reads(A[v_i_o * 16 + v_i_i, v_k])
                    T.writes(B[v_i_o * 16 + v_i_i])
                    with T.init():
                        B[v_i_o * 16 + v_i_i] = T.float32(0)
                    B[v_i_o * 16 + v_i_i] = B[v_i_o * 16 + v_i_i] + A[v_i_o * 16 + v_i_i, v_k]
