# Newer spelling with an explicit root block holding an allocation: B = exp(A) and C = B + B over 1024 float32 elements.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    with T.block("root"):
        T.reads()
        T.writes()
        B = T.alloc_buffer((1024,))
        for i in range(1024):
            with T.block("B"):
                v_i = T.axis.spatial(1024, i)
                T.reads(A[v_i])
                T.writes(B[v_i])
                B[v_i] = T.exp(A[v_i])
        for i in range(1024):
            with T.block("C"):
                v_i = T.axis.spatial(1024, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i] + B[v_i]
