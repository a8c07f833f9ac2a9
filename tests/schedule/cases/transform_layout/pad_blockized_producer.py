# A row sum blockized over its reduction: the writer of B sits in an inner
# block whose indices are the outer block's iterator. Replacing the loop by
# one over the padded shape would bind the outer iterator outside its
# domain, so the padding is filled by a block after the producer.
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 8), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("B_o"):
            vi_o = T.axis.spatial(16, i)
            vk_o = T.axis.reduce(1, 0)
            T.reads(A[vi_o, 0:8])
            T.writes(B[vi_o])
            with T.init():
                with T.block("B_init"):
                    B[vi_o] = T.float32(0)
            for k in range(8):
                with T.block("B"):
                    vk_i = T.axis.reduce(8, k)
                    B[vi_o] = B[vi_o] + A[vi_o, vk_i]
