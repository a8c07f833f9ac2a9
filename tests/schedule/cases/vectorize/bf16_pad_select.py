# A bfloat16 padding block: T.if_then_else whose condition varies along the
# lanes once the loop is vectorized (a select of bfloat16 lanes).
# from tvm.script import tir as T

@T.prim_func
def main(data: T.Buffer((4, 16), "bfloat16"), out: T.Buffer((6, 18), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    pad = T.alloc_buffer((6, 18), "bfloat16")
    for h, w in T.grid(6, 18):
        with T.block("pad"):
            vh, vw = T.axis.remap("SS", [h, w])
            pad[vh, vw] = T.if_then_else(1 <= vh and vh < 5 and 1 <= vw and vw < 17,
                                         data[vh - 1, vw - 1], T.bfloat16(0))
    for h, w in T.grid(6, 18):
        with T.block("out"):
            vh, vw = T.axis.remap("SS", [h, w])
            out[vh, vw] = T.Cast("float32", pad[vh, vw]) * T.float32(2)
