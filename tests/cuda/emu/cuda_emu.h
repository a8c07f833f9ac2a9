/*
 * tests/cuda/emu/cuda_emu.h — what the CUDA C of targets/cuda needs to
 * compile as host C++ for the emulator (fake_libcuda.c): force-included by
 * the target when TESSEL_CUDA_EMULATE names this folder.
 *
 * Each emulated thread is a host thread; the driver sets the indices of
 * the calling thread and the barrier function once per kernel library.
 * `__shared__` arrays are static: one copy, shared by the threads of the
 * block that runs (blocks run one after another).
 */
#include <math.h>
#include <stdint.h>

struct tsl_emu_dim3 {
  unsigned x, y, z;
};
static thread_local tsl_emu_dim3 threadIdx, blockIdx;
static void (*tsl_emu_barrier)(void);

extern "C" void tsl_emu_set_indices(const unsigned *thread, const unsigned *block) {
  threadIdx = {thread[0], thread[1], thread[2]};
  blockIdx = {block[0], block[1], block[2]};
}
extern "C" void tsl_emu_set_barrier(void (*barrier)(void)) { tsl_emu_barrier = barrier; }

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define __syncthreads() tsl_emu_barrier()
