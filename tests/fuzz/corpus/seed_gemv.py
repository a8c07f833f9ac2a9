# Matrix-vector product y = A @ x with A of shape 256x128, float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256, 128), "float32"), x: T.Buffer((128,), "float32"), y: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i, k in T.grid(256, 128):
        with T.block("gemv"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk], x[vk])
            T.writes(y[vi])
            with T.init():
                y[vi] = T.float32(0)
            y[vi] = y[vi] + A[vi, vk] * x[vk]
