# An IRModule of a small MLP's kernels: dense+bias+ReLU (32x64 -> 32x32), dense+bias (32x32 -> 32x10) and a row softmax (32x10), float32.
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def dense_relu(X: T.Buffer((32, 64), "float32"), W: T.Buffer((32, 64), "float32"), b: T.Buffer((32,), "float32"), Y: T.Buffer((32, 32), "float32")):
        T.func_attr({"global_symbol": "dense_relu", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        acc = T.alloc_buffer((32, 32))
        for i, j, k in T.grid(32, 32, 64):
            with T.block("dense"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(X[v_i, v_k], W[v_j, v_k])
                T.writes(acc[v_i, v_j])
                with T.init():
                    acc[v_i, v_j] = T.float32(0)
                acc[v_i, v_j] = acc[v_i, v_j] + X[v_i, v_k] * W[v_j, v_k]
        for i, j in T.grid(32, 32):
            with T.block("bias_relu"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(acc[v_i, v_j], b[v_j])
                T.writes(Y[v_i, v_j])
                Y[v_i, v_j] = T.max(acc[v_i, v_j] + b[v_j], T.float32(0))

    @T.prim_func
    def dense(X: T.Buffer((32, 32), "float32"), W: T.Buffer((10, 32), "float32"), b: T.Buffer((10,), "float32"), Y: T.Buffer((32, 10), "float32")):
        T.func_attr({"global_symbol": "dense", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, j, k in T.grid(32, 10, 32):
            with T.block("dense"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(X[v_i, v_k], W[v_j, v_k], b[v_j])
                T.writes(Y[v_i, v_j])
                with T.init():
                    Y[v_i, v_j] = b[v_j]
                Y[v_i, v_j] = Y[v_i, v_j] + X[v_i, v_k] * W[v_j, v_k]

    @T.prim_func
    def softmax(A: T.Buffer((32, 10), "float32"), B: T.Buffer((32, 10), "float32")):
        T.func_attr({"global_symbol": "softmax", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        mx = T.alloc_buffer((32,))
        e = T.alloc_buffer((32, 10))
        s = T.alloc_buffer((32,))
        for i, k in T.grid(32, 10):
            with T.block("max"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(A[v_i, v_k])
                T.writes(mx[v_i])
                with T.init():
                    mx[v_i] = T.float32(-3.4028234663852886e+38)
                mx[v_i] = T.max(mx[v_i], A[v_i, v_k])
        for i, j in T.grid(32, 10):
            with T.block("exp"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(A[v_i, v_j], mx[v_i])
                T.writes(e[v_i, v_j])
                e[v_i, v_j] = T.exp(A[v_i, v_j] - mx[v_i])
        for i, k in T.grid(32, 10):
            with T.block("sum"):
                v_i, v_k = T.axis.remap("SR", [i, k])
                T.reads(e[v_i, v_k])
                T.writes(s[v_i])
                with T.init():
                    s[v_i] = T.float32(0)
                s[v_i] = s[v_i] + e[v_i, v_k]
        for i, j in T.grid(32, 10):
            with T.block("norm"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(e[v_i, v_j], s[v_i])
                T.writes(B[v_i, v_j])
                B[v_i, v_j] = e[v_i, v_j] / s[v_i]
