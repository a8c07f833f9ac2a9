# 1-D convolution with zero padding 1 on both sides: A (16) padded to
# A_pad (18), B[i] = sum_k A_pad[i + k] * W[k].
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "float32"), W: T.Buffer((3,), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    A_pad = T.alloc_buffer((18,))
    for i in range(18):
        with T.block("A_pad"):
            v_i = T.axis.spatial(18, i)
            T.reads(A[v_i - 1])
            T.writes(A_pad[v_i])
            A_pad[v_i] = T.if_then_else(1 <= v_i and v_i < 17, A[v_i - 1], T.float32(0))
    for i, k in T.grid(16, 3):
        with T.block("B"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(A_pad[v_i + v_k], W[v_k])
            T.writes(B[v_i])
            with T.init():
                B[v_i] = T.float32(0)
            B[v_i] = B[v_i] + A_pad[v_i + v_k] * W[v_k]
