# ReLU over a 1x1024 float32 tensor: B = max(A, 0).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1, 1024), "float32"), B: T.Buffer((1, 1024), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i0, i1 in T.grid(1, 1024):
        with T.block("compute"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(A[v_i0, v_i1])
            T.writes(B[v_i0, v_i1])
            B[v_i0, v_i1] = T.max(A[v_i0, v_i1], T.float32(0))
