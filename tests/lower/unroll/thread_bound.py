# A thread-bound loop neither counts nor stays a loop for the rule (TVM has
# turned it into a thread-extent attribute by then): under max step 8 the
# serial i loop around it has 4 x 1 = 4 steps and unrolls.
@T.prim_func
def main(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 8, "pragma_unroll_explicit": 1}):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, tx])
                B[vi, vj] = A[vi, vj] + T.float32(1)
