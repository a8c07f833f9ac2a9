# C = A @ B with 60x60 operands and k = 32, float32 (sizes that do not divide by 16).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((60, 32), "float32"), B: T.Buffer((32, 60), "float32"), C: T.Buffer((60, 60), "float32")):
    for i, j, k in T.grid(60, 60, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
