/*
 * tests/cuda/emu/cuda_emu.h — what the CUDA C of targets/cuda needs to
 * compile as host C++ for the emulator (fake_libcuda.c): force-included by
 * the target when TESSEL_CUDA_EMULATE names this folder.
 *
 * Each emulated thread is a context of its own on the host thread that
 * launched; the driver sets the indices (thread-local to the host thread)
 * each time it switches to one, and the barrier functions once per kernel
 * library.
 * `__shared__` arrays are static: one copy, shared by the threads of the
 * block that runs (blocks run one after another).
 */
#include <math.h>
#include <stdint.h>

struct tsl_emu_dim3 {
  unsigned x, y, z;
};
static thread_local tsl_emu_dim3 threadIdx, blockIdx, blockDim;
static void (*tsl_emu_barrier)(void), (*tsl_emu_warp_barrier)(void);

extern "C" void tsl_emu_set_indices(const unsigned *thread, const unsigned *block,
                                    const unsigned *dim) {
  threadIdx = {thread[0], thread[1], thread[2]};
  blockIdx = {block[0], block[1], block[2]};
  blockDim = {dim[0], dim[1], dim[2]};
}
extern "C" void tsl_emu_set_barrier(void (*barrier)(void), void (*warp_barrier)(void)) {
  tsl_emu_barrier = barrier;
  tsl_emu_warp_barrier = warp_barrier;
}

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(n)
#define __restrict__ __restrict
#define __syncthreads() tsl_emu_barrier()

/* CUDA's math functions that the host's libm lacks. */
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }

/* Warp shuffles through a slot per thread between two barriers of the warp
 * (every lane of the warp shuffles at the same point in generated code). */
static unsigned long long tsl_emu_lanes[1024];
static inline unsigned __activemask(void) { return 0xffffffffu; }
template <class T> static T __shfl_xor_sync(unsigned, T v, int offset, int = 32) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  T r;
  __builtin_memcpy(&tsl_emu_lanes[tid], &v, sizeof v);
  tsl_emu_warp_barrier();
  __builtin_memcpy(&r, &tsl_emu_lanes[tid ^ (unsigned)offset], sizeof r);
  tsl_emu_warp_barrier();
  return r;
}

template <class T> static T __shfl_sync(unsigned, T v, int lane, int width = 32) {
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  T r;
  __builtin_memcpy(&tsl_emu_lanes[tid], &v, sizeof v);
  tsl_emu_warp_barrier();
  __builtin_memcpy(&r, &tsl_emu_lanes[tid - tid % width + (unsigned)lane % width], sizeof r);
  tsl_emu_warp_barrier();
  return r;
}

/* The warp-level tensor-core helpers are mma_ptx.h's (no PTX assembly). */
#define TSL_CUDA_EMULATED 1

/* Alignment and the vector types of raw vector copies (float4, half2, ...). */
#define __align__(n) __attribute__((aligned(n)))
struct uint2 {
  unsigned x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
/* Dynamic shared memory: one static block per kernel, of the size the
 * generated code states (blocks run one after another). */
#define TSL_DYN_SMEM(name, bytes) static __attribute__((aligned(16))) unsigned char name[bytes]
