# Row sums recomputed under a loop j that binds no iterator of "S" (as
# compute_at with preserve_unit_loops=False leaves them; from the random tests).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 4), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    S = T.alloc_buffer((8,))
    for i, j in T.grid(8, 4):
        for k in range(8):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(S[vi])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(S[vi])
            T.writes(B[vi, vj])
            B[vi, vj] = S[vi] * T.float32(2)
