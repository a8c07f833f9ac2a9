# row sums of a matrix with a symbolic number of columns
# from tvm.script import tir as T

@T.prim_func
def main(x: T.handle, S: T.Buffer((4,), "float32")):
    m = T.int64()
    X = T.match_buffer(x, (4, m), "float32")
    for i, j in T.grid(4, m):
        with T.block("S"):
            vi, vj = T.axis.remap("SR", [i, j])
            with T.init():
                S[vi] = T.float32(0)
            S[vi] = S[vi] + X[vi, vj]
