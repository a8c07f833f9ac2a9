# 1-D sliding window sum of width 3: B[i] = A[i] + A[i + 1] + A[i + 2], A has 130 elements, B 128, float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((130,), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, k in T.grid(128, 3):
        with T.block("window_sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi + vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi + vk]
