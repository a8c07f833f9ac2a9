# T.call_extern in an expression position: B[i] = my_activation(A[i], 0.1) + 1, an external float32 function (round-trip only; not runnable).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    T.func_attr({"global_symbol": "main"})
    # with T.block("root"):
    for i in range(32):
        with T.block("B"):
            v_i = T.axis.spatial(32, i)
            T.reads(A[v_i])
            T.writes(B[v_i])
            B[v_i] = T.call_extern("float32", "my_activation", A[v_i], T.float32(0.10000000000000001)) + T.float32(1)
