# T.evaluate statements (a constant and a discarded call to the C library's exp) next to an ordinary copy of 16 int32 elements.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    T.func_attr({"global_symbol": "main"})
    # with T.block("root"):
    T.evaluate(0)
    for i in range(16):
        with T.block("copy"):
            v_i = T.axis.spatial(16, i)
            T.reads(A[v_i])
            T.writes(B[v_i])
            T.evaluate(T.call_extern("float64", "exp", T.Cast("float64", v_i)))
            B[v_i] = A[v_i]
