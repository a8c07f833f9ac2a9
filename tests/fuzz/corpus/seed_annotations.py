# Attribute dictionaries of every value kind on a function, a loop and a block; computes B = 2 * A on 64 float32 elements.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True), "target": "llvm -mcpu=skylake", "tessel.priority": 3, "tessel.scale": 0.5, "tessel.flags": [1, 2, 3], "tessel.nested": {"a": 1, "b": "two"}})
    # with T.block("root"):
    for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 0}):
        with T.block("B"):
            v_i = T.axis.spatial(64, i)
            T.reads(A[v_i])
            T.writes(B[v_i])
            T.block_attr({"meta_schedule.auto_tensorize": "", "meta_schedule.cooperative_fetch": 4, "schedule_rule": "None"})
            B[v_i] = A[v_i] * T.float32(2)
