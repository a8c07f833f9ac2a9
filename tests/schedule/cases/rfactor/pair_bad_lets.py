# Two accumulators but one let: the second store stores an expression.
# from tvm.script import tir as T

@T.prim_func
def main(V: T.Buffer((16, 64), "float32"), S: T.Buffer((16,), "float32"), Q: T.Buffer((16,), "float32")):
    for r, c in T.grid(16, 64):
        with T.block("sums"):
            vr, vc = T.axis.remap("SR", [r, c])
            with T.init():
                S[vr] = T.float32(0)
                Q[vr] = T.float32(0)
            v_S: T.float32 = S[vr] + V[vr, vc]
            S[vr] = v_S
            Q[vr] = Q[vr] + V[vr, vc] * V[vr, vc]
