# A ResNet-18-shaped CNN, batch 1, 224x224, batch norm folded (written by workloads/models/gen_models.py).
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class ResNet18:
    @R.function
    def main(x: R.Tensor((1, 3, 224, 224), dtype="float32"),
             conv1_w: R.Tensor((64, 3, 7, 7), dtype="float32"),
             conv1_b: R.Tensor((1, 64, 1, 1), dtype="float32"),
             layer1_0_conv1_w: R.Tensor((64, 64, 3, 3), dtype="float32"),
             layer1_0_conv1_b: R.Tensor((1, 64, 1, 1), dtype="float32"),
             layer1_0_conv2_w: R.Tensor((64, 64, 3, 3), dtype="float32"),
             layer1_0_conv2_b: R.Tensor((1, 64, 1, 1), dtype="float32"),
             layer1_1_conv1_w: R.Tensor((64, 64, 3, 3), dtype="float32"),
             layer1_1_conv1_b: R.Tensor((1, 64, 1, 1), dtype="float32"),
             layer1_1_conv2_w: R.Tensor((64, 64, 3, 3), dtype="float32"),
             layer1_1_conv2_b: R.Tensor((1, 64, 1, 1), dtype="float32"),
             layer2_0_conv1_w: R.Tensor((128, 64, 3, 3), dtype="float32"),
             layer2_0_conv1_b: R.Tensor((1, 128, 1, 1), dtype="float32"),
             layer2_0_down_w: R.Tensor((128, 64, 1, 1), dtype="float32"),
             layer2_0_down_b: R.Tensor((1, 128, 1, 1), dtype="float32"),
             layer2_0_conv2_w: R.Tensor((128, 128, 3, 3), dtype="float32"),
             layer2_0_conv2_b: R.Tensor((1, 128, 1, 1), dtype="float32"),
             layer2_1_conv1_w: R.Tensor((128, 128, 3, 3), dtype="float32"),
             layer2_1_conv1_b: R.Tensor((1, 128, 1, 1), dtype="float32"),
             layer2_1_conv2_w: R.Tensor((128, 128, 3, 3), dtype="float32"),
             layer2_1_conv2_b: R.Tensor((1, 128, 1, 1), dtype="float32"),
             layer3_0_conv1_w: R.Tensor((256, 128, 3, 3), dtype="float32"),
             layer3_0_conv1_b: R.Tensor((1, 256, 1, 1), dtype="float32"),
             layer3_0_down_w: R.Tensor((256, 128, 1, 1), dtype="float32"),
             layer3_0_down_b: R.Tensor((1, 256, 1, 1), dtype="float32"),
             layer3_0_conv2_w: R.Tensor((256, 256, 3, 3), dtype="float32"),
             layer3_0_conv2_b: R.Tensor((1, 256, 1, 1), dtype="float32"),
             layer3_1_conv1_w: R.Tensor((256, 256, 3, 3), dtype="float32"),
             layer3_1_conv1_b: R.Tensor((1, 256, 1, 1), dtype="float32"),
             layer3_1_conv2_w: R.Tensor((256, 256, 3, 3), dtype="float32"),
             layer3_1_conv2_b: R.Tensor((1, 256, 1, 1), dtype="float32"),
             layer4_0_conv1_w: R.Tensor((512, 256, 3, 3), dtype="float32"),
             layer4_0_conv1_b: R.Tensor((1, 512, 1, 1), dtype="float32"),
             layer4_0_down_w: R.Tensor((512, 256, 1, 1), dtype="float32"),
             layer4_0_down_b: R.Tensor((1, 512, 1, 1), dtype="float32"),
             layer4_0_conv2_w: R.Tensor((512, 512, 3, 3), dtype="float32"),
             layer4_0_conv2_b: R.Tensor((1, 512, 1, 1), dtype="float32"),
             layer4_1_conv1_w: R.Tensor((512, 512, 3, 3), dtype="float32"),
             layer4_1_conv1_b: R.Tensor((1, 512, 1, 1), dtype="float32"),
             layer4_1_conv2_w: R.Tensor((512, 512, 3, 3), dtype="float32"),
             layer4_1_conv2_b: R.Tensor((1, 512, 1, 1), dtype="float32"),
             fc_w: R.Tensor((512, 1000), dtype="float32"),
             fc_b: R.Tensor((1000,), dtype="float32")) -> R.Tensor((1, 1000), dtype="float32"):
        with R.dataflow():
            c1 = R.nn.conv2d(x, conv1_w, strides=[2, 2], padding=[3, 3, 3, 3])
            a2 = R.add(c1, conv1_b)
            r3 = R.nn.relu(a2)
            p4 = R.nn.max_pool2d(r3, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
            c5 = R.nn.conv2d(p4, layer1_0_conv1_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a6 = R.add(c5, layer1_0_conv1_b)
            r7 = R.nn.relu(a6)
            c8 = R.nn.conv2d(r7, layer1_0_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a9 = R.add(c8, layer1_0_conv2_b)
            s10 = R.add(a9, p4)
            r11 = R.nn.relu(s10)
            c12 = R.nn.conv2d(r11, layer1_1_conv1_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a13 = R.add(c12, layer1_1_conv1_b)
            r14 = R.nn.relu(a13)
            c15 = R.nn.conv2d(r14, layer1_1_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a16 = R.add(c15, layer1_1_conv2_b)
            s17 = R.add(a16, r11)
            r18 = R.nn.relu(s17)
            c19 = R.nn.conv2d(r18, layer2_0_conv1_w, strides=[2, 2], padding=[1, 1, 1, 1])
            a20 = R.add(c19, layer2_0_conv1_b)
            r21 = R.nn.relu(a20)
            c22 = R.nn.conv2d(r18, layer2_0_down_w, strides=[2, 2], padding=[0, 0, 0, 0])
            a23 = R.add(c22, layer2_0_down_b)
            c24 = R.nn.conv2d(r21, layer2_0_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a25 = R.add(c24, layer2_0_conv2_b)
            s26 = R.add(a25, a23)
            r27 = R.nn.relu(s26)
            c28 = R.nn.conv2d(r27, layer2_1_conv1_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a29 = R.add(c28, layer2_1_conv1_b)
            r30 = R.nn.relu(a29)
            c31 = R.nn.conv2d(r30, layer2_1_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a32 = R.add(c31, layer2_1_conv2_b)
            s33 = R.add(a32, r27)
            r34 = R.nn.relu(s33)
            c35 = R.nn.conv2d(r34, layer3_0_conv1_w, strides=[2, 2], padding=[1, 1, 1, 1])
            a36 = R.add(c35, layer3_0_conv1_b)
            r37 = R.nn.relu(a36)
            c38 = R.nn.conv2d(r34, layer3_0_down_w, strides=[2, 2], padding=[0, 0, 0, 0])
            a39 = R.add(c38, layer3_0_down_b)
            c40 = R.nn.conv2d(r37, layer3_0_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a41 = R.add(c40, layer3_0_conv2_b)
            s42 = R.add(a41, a39)
            r43 = R.nn.relu(s42)
            c44 = R.nn.conv2d(r43, layer3_1_conv1_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a45 = R.add(c44, layer3_1_conv1_b)
            r46 = R.nn.relu(a45)
            c47 = R.nn.conv2d(r46, layer3_1_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a48 = R.add(c47, layer3_1_conv2_b)
            s49 = R.add(a48, r43)
            r50 = R.nn.relu(s49)
            c51 = R.nn.conv2d(r50, layer4_0_conv1_w, strides=[2, 2], padding=[1, 1, 1, 1])
            a52 = R.add(c51, layer4_0_conv1_b)
            r53 = R.nn.relu(a52)
            c54 = R.nn.conv2d(r50, layer4_0_down_w, strides=[2, 2], padding=[0, 0, 0, 0])
            a55 = R.add(c54, layer4_0_down_b)
            c56 = R.nn.conv2d(r53, layer4_0_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a57 = R.add(c56, layer4_0_conv2_b)
            s58 = R.add(a57, a55)
            r59 = R.nn.relu(s58)
            c60 = R.nn.conv2d(r59, layer4_1_conv1_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a61 = R.add(c60, layer4_1_conv1_b)
            r62 = R.nn.relu(a61)
            c63 = R.nn.conv2d(r62, layer4_1_conv2_w, strides=[1, 1], padding=[1, 1, 1, 1])
            a64 = R.add(c63, layer4_1_conv2_b)
            s65 = R.add(a64, r59)
            r66 = R.nn.relu(s65)
            g67 = R.nn.adaptive_avg_pool2d(r66, output_size=[1, 1])
            f68 = R.reshape(g67, R.shape([1, 512]))
            m69 = R.matmul(f68, fc_w)
            out = R.add(m69, fc_b)
            R.output(out)
        return out
