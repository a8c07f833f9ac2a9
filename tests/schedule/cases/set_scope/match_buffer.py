# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_sub0 = T.match_buffer(B[vi, vj], (), offset_factor=1)
            B_sub0[()] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_sub1 = T.match_buffer(B[vi, vj], (), offset_factor=1)
            C[vi, vj] = B_sub1[()] + T.float32(1)
