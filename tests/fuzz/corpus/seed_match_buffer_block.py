# match_buffer inside a block: each outer block views a 4-element slice of A and B as its own buffers and sums it; B[i] = A[4i] + ... + A[4i + 3] over 64 float32 inputs.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(16):
        with T.block("outer"):
            v_i = T.axis.spatial(16, i)
            T.reads(A[v_i * 4:v_i * 4 + 4])
            T.writes(B[v_i:v_i + 1])
            A_sub = T.match_buffer(A[v_i * 4:v_i * 4 + 4], (4,))
            B_sub = T.match_buffer(B[v_i:v_i + 1], (1,))
            for k in range(4):
                with T.block("inner"):
                    v_k = T.axis.reduce(4, k)
                    T.reads(A_sub[v_k])
                    T.writes(B_sub[0])
                    with T.init():
                        B_sub[0] = T.float32(0)
                    B_sub[0] = B_sub[0] + A_sub[v_k]
