@T.prim_func
def views(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    for i in range(2):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            At = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:8], (4, 8))
            for j, k in T.grid(4, 8):
                with T.block("D"):
                    vj, vk = T.axis.remap("SS", [j, k])
                    C[vi * 4 + vj, vk] = At[vj, vk] + T.float32(1)
