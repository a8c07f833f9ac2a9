# Per row of V, the largest value and its column, carried as a pair.
# from tvm.script import tir as T

@T.prim_func
def main(V: T.Buffer((16, 64), "float32"), best_idx: T.Buffer((16,), "int32"), best_val: T.Buffer((16,), "float32")):
    for r, c_0, c_1 in T.grid(16, 8, 8):
        with T.block("argmax"):
            vr = T.axis.spatial(16, r)
            vc = T.axis.reduce(64, c_0 * 8 + c_1)
            with T.init():
                best_idx[vr] = -1
                best_val[vr] = T.min_value("float32")
            v_idx: T.int32 = T.Select(best_val[vr] >= V[vr, vc], best_idx[vr], vc)
            v_val: T.float32 = T.Select(best_val[vr] >= V[vr, vc], best_val[vr], V[vr, vc])
            best_idx[vr] = v_idx
            best_val[vr] = v_val
