# Row sums whose update goes through a let.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 32):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            v_B: T.float32 = B[vi] + A[vi, vk] * T.float32(2)
            B[vi] = v_B
