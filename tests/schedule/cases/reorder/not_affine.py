# B = A * 2 where the last iterator steps by 16.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8, 128), "float32"), B: T.Buffer((8, 8, 128), "float32")):
    for i, j, l in T.grid(8, 8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            vl = T.axis.spatial(128, l * 16)
            B[vi, vj, vl] = A[vi, vj, vl] * T.float32(2)
