# An elementwise producer and a two-step epilogue: C = A + 1; D = C * 2; E = relu(D).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), E: T.Buffer((4, 8), "float32")):
    C = T.alloc_buffer((4, 8))
    D = T.alloc_buffer((4, 8))
    for i, j in T.grid(4, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(4, 8):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * T.float32(2)
    for i, j in T.grid(4, 8):
        with T.block("E"):
            vi, vj = T.axis.remap("SS", [i, j])
            E[vi, vj] = T.max(D[vi, vj], T.float32(0))
