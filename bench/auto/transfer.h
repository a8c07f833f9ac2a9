/*
 * bench/auto/transfer.h — what a cost model saved from other programs'
 * runs is worth (`./tessel bench auto --only transfer`; Ansor's transfer
 * learning, TVM's XGBModel.load):
 *   corpus  the programs of bench/tune/corpus/ (matmuls of other shapes,
 *           ResNet convolutions of other layers; none evaluated below)
 *           tuned in 64 trials each at 2 threads, one after the other,
 *           each run loading the model the last one saved
 *           (cost_model.load / cost_model.save);
 *   pairs   the 128 matmul at 1 thread, the ResNet stem and 3x3 layer in
 *           64 trials and the 1024 matmul in 128, each seed tuned from a
 *           fresh model (A) and from the corpus model (B), one right
 *           after the other, in an order that alternates between seeds.
 * Per pair the re-measured bests, their ratio and the wall times; per
 * workload the median ratio, the pairs B won, each side's median and how
 * far its worst seed fell below it, and the tuning time B / A.
 */
#ifndef TESSEL_BENCH_TRANSFER_H
#define TESSEL_BENCH_TRANSFER_H

/* `pairs` seeds per workload. */
void bench_transfer(const char *root, int pairs);

#endif
