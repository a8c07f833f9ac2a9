# AMX tile intrinsic calls as the x86 plugin's dot_16x16x64_amx leaves them
# (tests/llvm/test_amx.c): C's 16 x 16 tiles += A's rows times the packed
# weight, first in a parallel loop, then again in a serial one in the same
# function (which must configure its tiles again after the parallel loop).
@T.prim_func
def main(A: T.Buffer((64, 64), "uint8"), W: T.Buffer((4, 16, 16, 4), "int8"),
         C: T.Buffer((64, 64), "int32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": True})
    for i in T.parallel(4):
        for j in range(4):
            T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tileloadd64", T.uint32(0), T.int8(0), T.address_of(C[i * 16, j * 16]), T.int64(256)))
            T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tileloadd64", T.uint32(0), T.int8(1), T.address_of(A[i * 16, 0]), T.int64(64)))
            T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tileloadd64", T.uint32(0), T.int8(2), T.address_of(W[j, 0, 0, 0]), T.int64(64)))
            T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tdpbusd", T.uint32(0), T.int8(0), T.int8(1), T.int8(2)))
            T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tilestored64", T.uint32(0), T.int8(0), T.address_of(C[i * 16, j * 16]), T.int64(256)))
    for i, j in T.grid(4, 4):
        T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tileloadd64", T.uint32(0), T.int8(0), T.address_of(C[i * 16, j * 16]), T.int64(256)))
        T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tileloadd64", T.uint32(0), T.int8(1), T.address_of(A[i * 16, 0]), T.int64(64)))
        T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tileloadd64", T.uint32(0), T.int8(2), T.address_of(W[j, 0, 0, 0]), T.int64(64)))
        T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tdpbusd", T.uint32(0), T.int8(0), T.int8(1), T.int8(2)))
        T.evaluate(T.call_llvm_intrin("int32", "llvm.x86.tilestored64", T.uint32(0), T.int8(0), T.address_of(C[i * 16, j * 16]), T.int64(256)))
