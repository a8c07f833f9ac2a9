# Per row, the smallest value and its column; on ties the smaller column
# wins (TVM's tie-breaking argmin).
# from tvm.script import tir as T

@T.prim_func
def main(V: T.Buffer((8, 32), "int32"), arg: T.Buffer((8,), "int32"), low: T.Buffer((8,), "int32")):
    for r, c in T.grid(8, 32):
        with T.block("argmin"):
            vr, vc = T.axis.remap("SR", [r, c])
            with T.init():
                arg[vr] = -1
                low[vr] = 2147483647
            v_arg: T.int32 = T.Select(low[vr] < V[vr, vc] or low[vr] == V[vr, vc] and arg[vr] < vc, arg[vr], vc)
            v_low: T.int32 = T.Select(low[vr] < V[vr, vc], low[vr], V[vr, vc])
            arg[vr] = v_arg
            low[vr] = v_low
