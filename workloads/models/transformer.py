# One transformer encoder block: sequence 128, hidden 256, 4 heads, feed-forward 1024, post-norm, ReLU (written by workloads/models/gen_models.py).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Transformer:
    @R.function
    def main(x: R.Tensor((128, 256), dtype="float32"),
             wq: R.Tensor((256, 256), dtype="float32"),
             bq: R.Tensor((256,), dtype="float32"),
             wk: R.Tensor((256, 256), dtype="float32"),
             bk: R.Tensor((256,), dtype="float32"),
             wv: R.Tensor((256, 256), dtype="float32"),
             bv: R.Tensor((256,), dtype="float32"),
             wo: R.Tensor((256, 256), dtype="float32"),
             bo: R.Tensor((256,), dtype="float32"),
             ln1_g: R.Tensor((256,), dtype="float32"),
             ln1_b: R.Tensor((256,), dtype="float32"),
             w1: R.Tensor((256, 1024), dtype="float32"),
             b1: R.Tensor((1024,), dtype="float32"),
             w2: R.Tensor((1024, 256), dtype="float32"),
             b2: R.Tensor((256,), dtype="float32"),
             ln2_g: R.Tensor((256,), dtype="float32"),
             ln2_b: R.Tensor((256,), dtype="float32"),
             scale: R.Tensor((1,), dtype="float32")) -> R.Tensor((128, 256), dtype="float32"):
        with R.dataflow():
            q = R.add(R.matmul(x, wq), bq)
            k = R.add(R.matmul(x, wk), bk)
            v = R.add(R.matmul(x, wv), bv)
            qh = R.permute_dims(R.reshape(q, R.shape([128, 4, 64])), axes=[1, 0, 2])
            kh = R.permute_dims(R.reshape(k, R.shape([128, 4, 64])), axes=[1, 2, 0])
            vh = R.permute_dims(R.reshape(v, R.shape([128, 4, 64])), axes=[1, 0, 2])
            sc = R.multiply(R.matmul(qh, kh), scale)
            pr = R.nn.softmax(sc, axis=-1)
            o = R.matmul(pr, vh)
            oc = R.reshape(R.permute_dims(o, axes=[1, 0, 2]), R.shape([128, 256]))
            at = R.add(R.matmul(oc, wo), bo)
            h1 = R.nn.layer_norm(R.add(x, at), ln1_g, ln1_b, axes=[-1], epsilon=1.0000000000000001e-05)
            f1 = R.nn.relu(R.add(R.matmul(h1, w1), b1))
            f2 = R.add(R.matmul(f1, w2), b2)
            out = R.nn.layer_norm(R.add(h1, f2), ln2_g, ln2_b, axes=[-1], epsilon=1.0000000000000001e-05)
            R.output(out)
        return out
