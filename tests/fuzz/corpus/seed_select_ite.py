# T.Select (evaluates both sides) versus T.if_then_else (guards an out-of-range read): a 1-D shift with zero fill and a leaky ReLU on 64 float32 elements.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), Shifted: T.Buffer((64,), "float32"), Leaky: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(64):
        with T.block("shift"):
            v_i = T.axis.spatial(64, i)
            T.reads(A[v_i - 3])
            T.writes(Shifted[v_i])
            Shifted[v_i] = T.if_then_else(v_i >= 3, A[v_i - 3], T.float32(0))
    for i in range(64):
        with T.block("leaky"):
            v_i = T.axis.spatial(64, i)
            T.reads(A[v_i])
            T.writes(Leaky[v_i])
            Leaky[v_i] = T.Select(A[v_i] > T.float32(0), A[v_i], A[v_i] * T.float32(0.01))
