# Vector addition C = A + B of 1024 float32 elements: the first GPU kernel of the course (thread blocks over one loop; examples/gpu/vector_add.sch binds it).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    for i in range(1024):
        with T.block("C"):
            vi = T.axis.spatial(1024, i)
            C[vi] = A[vi] + B[vi]
