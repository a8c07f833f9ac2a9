/* tests/cuda/emu: bfloat16 as a 16-bit struct converting to and from float
 * (round to nearest even, as CUDA's __float2bfloat16); generated code
 * computes in float. */
struct __nv_bfloat16 {
  unsigned short x;
  __nv_bfloat16() = default;
  template <class T> __nv_bfloat16(T v) {
    const float f = (float)v;
    unsigned u;
    __builtin_memcpy(&u, &f, 4);
    x = f != f ? 0x7fc0 : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  operator float() const {
    const unsigned u = (unsigned)x << 16;
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
  }
};
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
