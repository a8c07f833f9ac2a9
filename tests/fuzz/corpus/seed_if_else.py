# if/else statements inside blocks and between loops: a piecewise function of a 128-element float32 vector (clamp to [-0.5, 0.5], then flip the sign of odd entries).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(128):
        with T.block("clamp"):
            v_i = T.axis.spatial(128, i)
            T.reads(A[v_i])
            T.writes(B[v_i])
            if A[v_i] > T.float32(0.5):
                B[v_i] = T.float32(0.5)
            else:
                if A[v_i] < T.float32(-0.5):
                    B[v_i] = T.float32(-0.5)
                else:
                    B[v_i] = A[v_i]
    for i in range(128):
        if i % 2 == 1:
            with T.block("odd"):
                v_i = T.axis.spatial(128, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = T.float32(0) - B[v_i]
        else:
            with T.block("even"):
                v_i = T.axis.spatial(128, i)
                T.reads(B[v_i])
                T.writes(C[v_i])
                C[v_i] = B[v_i]
