# promote.c: loop-invariant vector accesses held in register buffers.
@I.ir_module
class Module:
    @T.prim_func
    def rows(A: T.Buffer((4, 16), "float32"), B: T.Buffer((16, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        # two rows of C, 8 apart, over k0 and k1: promoted at k0, the outer
        for i0, k0, k1 in T.grid(2, 4, 4):
            for i1 in T.unroll(2):
                for j in T.vectorized(8):
                    with T.block("C"):
                        vi = T.axis.spatial(4, i0 * 2 + i1)
                        vj = T.axis.spatial(8, j)
                        vk = T.axis.reduce(16, k0 * 4 + k1)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def guarded(A: T.Buffer((4, 16), "float32"), B: T.Buffer((16, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        # the access runs on some iterations of k only: not promoted
        for i, k in T.grid(4, 16):
            for j in T.vectorized(8):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.where(k < 15)
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def overlap(A: T.Buffer((4, 16), "float32"), B: T.Buffer((16, 8), "float32"), C: T.Buffer((4, 12), "float32")):
        # two groups of C that share four elements: not promoted
        for i, k in T.grid(4, 16):
            for j in T.vectorized(8):
                with T.block("C"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    C[vi, vj] = C[vi, vj] + A[vi, vk]
                    C[vi, vj + 4] = C[vi, vj + 4] + B[vk, vj]

    @T.prim_func
    def too_many(A: T.Buffer((3, 16), "float32"), B: T.Buffer((16, 32), "float32"), C: T.Buffer((3, 32), "float32")):
        # three 32-lane rows are twelve 32-byte registers, over the budget of
        # eight: not promoted
        for k in range(16):
            for i in T.unroll(3):
                for j in T.vectorized(32):
                    with T.block("C"):
                        vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func
    def scalar(A: T.Buffer((4, 16), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((4,), "float32")):
        # scalar accumulators are left to the target: not promoted
        for i, k in T.grid(4, 16):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                C[vi] = C[vi] + A[vi, vk] * B[vk]
