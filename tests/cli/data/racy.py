# Row sums whose reduction loop k is (wrongly) parallel: in the natural
# order it computes the sums, in any other order the init at k == 0 runs
# in the middle.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        for k in T.parallel(16):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
