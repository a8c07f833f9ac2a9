# Transposed batch matmul of attention: query and value 1x128x12x64 (batch,
# seq_len, n_head, n_dim) are transposed to query_T 1x12x128x64 and value_T
# 1x12x64x128, then C[b, h, i, j] = sum_k query_T[b, h, i, k] *
# value_T[b, h, k, j] (1x12x128x128): the TBG workload of MetaSchedule's CPU
# design-space tests, written in TVMScript (names as its TE definition gives
# them).
# from tvm.script import tir as T

@T.prim_func
def main(query: T.Buffer((1, 128, 12, 64), "float32"), value: T.Buffer((1, 128, 12, 64), "float32"),
         C: T.Buffer((1, 12, 128, 128), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    query_T = T.alloc_buffer((1, 12, 128, 64))
    value_T = T.alloc_buffer((1, 12, 64, 128))
    for b, h, l, d in T.grid(1, 12, 128, 64):
        with T.block("query_T"):
            v_b, v_h, v_l, v_d = T.axis.remap("SSSS", [b, h, l, d])
            T.reads(query[v_b, v_l, v_h, v_d])
            T.writes(query_T[v_b, v_h, v_l, v_d])
            query_T[v_b, v_h, v_l, v_d] = query[v_b, v_l, v_h, v_d]
    for b, h, d, l in T.grid(1, 12, 64, 128):
        with T.block("value_T"):
            v_b, v_h, v_d, v_l = T.axis.remap("SSSS", [b, h, d, l])
            T.reads(value[v_b, v_l, v_h, v_d])
            T.writes(value_T[v_b, v_h, v_d, v_l])
            value_T[v_b, v_h, v_d, v_l] = value[v_b, v_l, v_h, v_d]
    for b, h, i, j, k in T.grid(1, 12, 128, 128, 64):
        with T.block("C"):
            v_b, v_h, v_i, v_j, v_k = T.axis.remap("SSSSR", [b, h, i, j, k])
            T.reads(query_T[v_b, v_h, v_i, v_k], value_T[v_b, v_h, v_k, v_j])
            T.writes(C[v_b, v_h, v_i, v_j])
            with T.init():
                C[v_b, v_h, v_i, v_j] = T.float32(0)
            C[v_b, v_h, v_i, v_j] = C[v_b, v_h, v_i, v_j] + query_T[v_b, v_h, v_i, v_k] * value_T[v_b, v_h, v_k, v_j]
