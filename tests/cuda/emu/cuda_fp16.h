/* tests/cuda/emu: float16 as the host compiler's _Float16 (IEEE binary16,
 * the same format as CUDA's half); generated code computes in float. */
typedef _Float16 half;
static inline half __float2half(float x) { return (half)x; }
static inline float __half2float(half x) { return (float)x; }
