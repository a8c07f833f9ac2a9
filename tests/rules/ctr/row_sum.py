# Row sums of a 256x512 float32 matrix: one reduction block and no consumer.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256, 512), "float32"), S: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, k in T.grid(256, 512):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(S[vi])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + A[vi, vk]
