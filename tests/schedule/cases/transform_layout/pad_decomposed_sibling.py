# decompose_reduction at the j loop leaves the init nest beside the update
# nest under the shared i loop: neither nest is a store's alone, so the
# padding is filled by a block after them (replacing the i loop for the
# update would drop the init).
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8, 5), "float32"), C: T.Buffer((4, 8), "float32")):
    for i, j, k in T.grid(4, 8, 5):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vj, vk]
