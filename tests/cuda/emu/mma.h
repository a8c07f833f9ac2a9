/*
 * tests/cuda/emu/mma.h — nvcuda::wmma for the emulator. On a GPU the 32
 * threads of a warp share a fragment, each holding some of its elements;
 * here every thread holds the whole tile and does the whole operation
 * (the warp's threads make the same calls with the same arguments, so
 * each computes, and stores, the same values). Elements are kept in the
 * tile's logical row-major order; products and sums are taken in float
 * (integers: exactly).
 */
#include <type_traits>

namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K> struct tile_of {
  static constexpr int rows = M, cols = N; /* accumulator */
};
template <int M, int N, int K> struct tile_of<matrix_a, M, N, K> {
  static constexpr int rows = M, cols = K;
};
template <int M, int N, int K> struct tile_of<matrix_b, M, N, K> {
  static constexpr int rows = K, cols = N;
};

template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
  static constexpr int rows = tile_of<Use, M, N, K>::rows, cols = tile_of<Use, M, N, K>::cols;
  T x[rows * cols];
};

template <class Use, int M, int N, int K, class T, class L, class V>
void fill_fragment(fragment<Use, M, N, K, T, L> &f, V v) {
  for (int i = 0; i < f.rows * f.cols; i++)
    f.x[i] = (T)v;
}

template <class F, class T> static void copy_in(F &f, const T *p, unsigned ldm, bool col) {
  for (int r = 0; r < F::rows; r++)
    for (int c = 0; c < F::cols; c++)
      f.x[r * F::cols + c] = col ? p[c * ldm + r] : p[r * ldm + c];
}

template <class Use, int M, int N, int K, class T>
void load_matrix_sync(fragment<Use, M, N, K, T, row_major> &f, const T *p, unsigned ldm) {
  copy_in(f, p, ldm, false);
}
template <class Use, int M, int N, int K, class T>
void load_matrix_sync(fragment<Use, M, N, K, T, col_major> &f, const T *p, unsigned ldm) {
  copy_in(f, p, ldm, true);
}
template <int M, int N, int K, class T>
void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const T *p, unsigned ldm,
                      layout_t l) {
  copy_in(f, p, ldm, l == mem_col_major);
}

template <int M, int N, int K, class T>
void store_matrix_sync(T *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm,
                       layout_t l) {
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++)
      (l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]) = f.x[r * N + c];
}

template <int M, int N, int K, class TA, class TC, class LA, class LB>
void mma_sync(fragment<accumulator, M, N, K, TC> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
              const fragment<matrix_b, M, N, K, TA, LB> &b,
              const fragment<accumulator, M, N, K, TC> &c) {
  /* integers exactly (int32 accumulators), floats in float */
  typedef typename std::conditional<std::is_integral<TC>::value, long long, float>::type acc;
  TC out[M * N];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      acc s = (acc)c.x[i * N + j];
      for (int k = 0; k < K; k++)
        s += (acc)a.x[i * K + k] * (acc)b.x[k * N + j];
      out[i * N + j] = (TC)s;
    }
  for (int i = 0; i < M * N; i++)
    d.x[i] = out[i];
}
} // namespace wmma
} // namespace nvcuda
