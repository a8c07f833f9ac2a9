@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for io, jo in T.grid(2, 2):
        for ko in range(4):
            for ii, jj, ki in T.grid(8, 8, 4):
                with T.block("C"):
                    vi = T.axis.spatial(16, io * 8 + ii)
                    vj = T.axis.spatial(16, jo * 8 + jj)
                    vk = T.axis.reduce(16, ko * 4 + ki)
                    with T.init():
                        C[vi, vj] = T.float32(0)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
