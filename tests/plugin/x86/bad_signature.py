@T.prim_func
def main(C: T.Buffer((16,), "int32")):
    with T.block("root"):
        C[0:16] = T.call_llvm_pure_intrin("int32x16", "llvm.x86.avx512.vpdpbusd.512", T.uint32(4), C[0:16], C[0:16], C[0:16])
