from tvm.script import tir as T


@T.prim_func
def main(A: T.Buffer((16, 16), "float16"), B: T.Buffer((16, 16), "float16")):
    with T.block("load"):
        T.reads(A[0:16, 0:16])
        T.writes(B[0:16, 0:16])
        T.evaluate(T.tvm_load_matrix_sync(B.data, 16, 16, 16, 0, A.access_ptr("r"), A.strides[0], "row_major"))
