# Row argmax of a 128x128 float32 matrix with its index matrix: a reduction
# writing two buffers (index and value), so it is never computed at a consumer.
# from tvm.script import tir as T

@T.prim_func
def main(idx: T.Buffer((128, 128), "int32"), val: T.Buffer((128, 128), "float32"),
         am_idx: T.Buffer((128,), "int32"), am_val: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i, k in T.grid(128, 128):
        with T.block("argmax"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(idx[vi, vk], val[vi, vk])
            T.writes(am_idx[vi], am_val[vi])
            with T.init():
                am_idx[vi] = -1
                am_val[vi] = T.float32(-3.4028234663852886e+38)
            new_idx: T.int32 = T.Select(am_val[vi] >= val[vi, vk], am_idx[vi], idx[vi, vk])
            new_val: T.float32 = T.Select(am_val[vi] >= val[vi, vk], am_val[vi], val[vi, vk])
            am_idx[vi] = new_idx
            am_val[vi] = new_val
