# TVM builtins as TVM's own tests write them: a 16x16 tensor-core tile
# (fill, load, mma, store through T.tvm_access_ptr and Buffer.access_ptr),
# a requantization, hints, and an opaque external call on A.data with the
# dtype given as a keyword (round-trip only; the builtins are not runnable).
from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((32, 32), "float16"), B: T.Buffer((32, 32), "float16"),
         C: T.Buffer((32, 32), "float32"), Q: T.Buffer((32,), "int32")):
    A_frag = T.alloc_buffer((32, 32), "float16", scope="wmma.matrix_a")
    B_frag = T.alloc_buffer((32, 32), "float16", scope="wmma.matrix_b")
    C_frag = T.alloc_buffer((32, 32), "float32", scope="wmma.accumulator")
    for i, j in T.grid(2, 2):
        with T.block("tile"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi * 16:vi * 16 + 16, 0:32], B[0:32, vj * 16:vj * 16 + 16])
            T.writes(C[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            T.evaluate(T.tvm_fill_fragment(C_frag.data, 16, 16, 16, vi * 2 + vj, T.float32(0), dtype="handle"))
            for k in range(2):
                T.evaluate(T.tvm_load_matrix_sync(A_frag.data, 16, 16, 16, vi * 2 + k,
                    T.tvm_access_ptr(T.type_annotation(dtype="float16"), A.data, vi * 512 + k * 16, 512, 1, dtype="handle"),
                    32, "row_major", dtype="handle"))
                T.evaluate(T.tvm_load_matrix_sync(B_frag.data, 16, 16, 16, k * 2 + vj,
                    B.access_ptr("r", offset=k * 512 + vj * 16, extent=512), 32, "row_major"))
                T.evaluate(T.tvm_mma_sync(C_frag.data, vi * 2 + vj, A_frag.data, vi * 2 + k,
                    B_frag.data, k * 2 + vj, C_frag.data, vi * 2 + vj))
            T.evaluate(T.tvm_store_matrix_sync(C_frag.data, 16, 16, 16, vi * 2 + vj,
                C.access_ptr("w", offset=vi * 512 + vj * 16), 32, "row_major"))
    for i in range(32):
        with T.block("requant"):
            vi = T.axis.spatial(32, i)
            T.evaluate(T.assume(T.likely(vi < 32, dtype="bool")))
            Q[vi] = T.q_multiply_shift(Q[vi], 1518500250, 31, -1, dtype="int32")
    with T.block("extern"):
        T.reads(Q[0:32])
        T.writes(Q[0:32])
        T.evaluate(T.call_extern("sort_inplace", Q.data, T.ceildiv(32, 8), dtype=""))
