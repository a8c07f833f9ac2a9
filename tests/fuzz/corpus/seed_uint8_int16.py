# Integer image arithmetic: uint8 pixels widened to int16, a horizontal [-1, 0, 1] gradient on a 16x18 image -> 16x16 int16, and a saturating uint8 brightness shift.
# from tvm.script import tir as T

@T.prim_func
def main(img: T.Buffer((16, 18), "uint8"), grad: T.Buffer((16, 16), "int16"), bright: T.Buffer((16, 18), "uint8")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for y, x in T.grid(16, 16):
        with T.block("grad"):
            v_y, v_x = T.axis.remap("SS", [y, x])
            T.reads(img[v_y, v_x:v_x + 3])
            T.writes(grad[v_y, v_x])
            grad[v_y, v_x] = T.Cast("int16", img[v_y, v_x + 2]) - T.Cast("int16", img[v_y, v_x])
    for y, x in T.grid(16, 18):
        with T.block("bright"):
            v_y, v_x = T.axis.remap("SS", [y, x])
            T.reads(img[v_y, v_x])
            T.writes(bright[v_y, v_x])
            bright[v_y, v_x] = T.Cast("uint8", T.min(T.Cast("int16", img[v_y, v_x]) + T.int16(100), T.int16(255)))
