/*
 * targets/cuda/cuda_internal.h — shared declarations of the CUDA target
 * (folder-internal; prefix tcu_).
 *
 * Flow of a build: the lowered module (lower.h) -> barriers inserted into
 * each kernel (sync.c) -> the kernels found at the outermost thread-bound
 * loops, with their launch extents and parameters (kernels.c) -> CUDA C of
 * the kernels (codegen_*.c) compiled by NVRTC to PTX and a cubin (nvrtc.c)
 * -> the host side as C (host.c), compiled by the system C compiler into a
 * shared library that launches the kernels through the driver API
 * (build.c). Measurement memory goes through the device hooks (driver.c).
 * NVRTC and libcuda are opened with dlopen, so the plugin loads and builds
 * PTX on machines without a GPU or a driver.
 */
#ifndef TESSEL_TARGETS_CUDA_INTERNAL_H
#define TESSEL_TARGETS_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "tessel/base.h"
#include "tessel/container.h"
#include "tessel/ir.h"
#include "tessel/lower.h"
#include "tessel/target.h"

/* ---- options and instances (vtable.c) ------------------------------------ */

struct tsl_target {
  int32_t arch;     /* compute capability as 10 * major + minor: 90 = sm_90 */
  int32_t device;   /* CUDA device ordinal of measurements */
  char cc[256];     /* the host compiler */
  char describe[320];
};

/* ---- NVRTC, opened with dlopen (nvrtc.c) ---------------------------------- */

/* The NVRTC result of one compilation: PTX text and the cubin for the
 * requested architecture (both malloc'd). */
typedef struct tcu_image {
  char *ptx;
  size_t ptx_len; /* without the NUL */
  unsigned char *cubin;
  size_t cubin_len;
} tcu_image;

/* Compile CUDA C `src` for sm_`arch`. `name` names the source in NVRTC's
 * messages. The toolkit is $CUDA_HOME, else /usr/local/cuda: libnvrtc from
 * its lib64 (then the loader's search path), its include/ for cuda_fp16.h.
 * Errors: "cuda target: NVRTC ... not found: <dlerror>", an architecture
 * NVRTC does not support (naming those it does), or the compile log. */
int tcu_nvrtc_compile(const char *src, const char *name, int32_t arch, tcu_image *out,
                      tsl_diag *diag);
void tcu_image_free(tcu_image *img);
/* NVRTC's version, e.g. 13 and 0. */
int tcu_nvrtc_version(int32_t *major, int32_t *minor, tsl_diag *diag);
/* The toolkit folder ($CUDA_HOME or /usr/local/cuda). */
const char *tcu_cuda_home(void);

/* ---- the driver API, opened with dlopen (driver.c) ------------------------ */

/* What the device of a measurement answered (cuDeviceGetAttribute). */
typedef struct tcu_device_info {
  int32_t ordinal;
  int32_t arch;                  /* 10 * major + minor */
  int32_t max_threads_per_block; /* 1024 */
  int32_t max_block[3];
  int32_t max_grid[3];
  int32_t smem_per_block;        /* static, without opt-in: 49152 */
  int32_t smem_per_block_optin;
  int32_t regs_per_block;
  int32_t warp_size;
  int32_t driver_version;        /* cuDriverGetVersion: 13000 */
  char name[128];
} tcu_device_info;

/* Open libcuda.so.1, cuInit, take device `ordinal`'s primary context and
 * make it current in the calling thread; once per process (later calls make
 * the context current and return the same answer). Without a driver or a
 * device the error starts "no CUDA device: " and says why: the dlopen
 * message, cuInit's error name and text, or the device count. */
int tcu_driver_open(int32_t ordinal, const tcu_device_info **out, tsl_diag *diag);

/* "NAME (text)" of a CUresult (cuGetErrorName / cuGetErrorString), e.g.
 * "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; "CUresult <n>" when the
 * driver cannot name it. Returns buf. */
const char *tcu_cu_error(int code, char *buf, size_t cap);

/* The device hooks of target.h on that context (the first call opens it). */
int tcu_dev_alloc(tsl_target *t, size_t bytes, void **out, tsl_diag *diag);
void tcu_dev_free(tsl_target *t, void *ptr);
int tcu_copy_to_device(tsl_target *t, void *dst, const void *src, size_t bytes,
                       tsl_diag *diag);
int tcu_copy_from_device(tsl_target *t, void *dst, const void *src, size_t bytes,
                         tsl_diag *diag);
int tcu_synchronize(tsl_target *t, tsl_diag *diag);
/* time_calls: `number` calls between two CUDA events. */
int tcu_time_calls(tsl_target *t, tsl_kernel *k, tsl_packed_fn fn, void *const *args,
                   int32_t number, double *mean_s, tsl_diag *diag);

/* ---- GPU passes on lowered programs ---------------------------------------- */

/* The launch dimensions, in this order. */
enum { TCU_BLOCK_X, TCU_BLOCK_Y, TCU_BLOCK_Z, TCU_THREAD_X, TCU_THREAD_Y, TCU_THREAD_Z,
       TCU_N_DIMS };
/* The dimension of a thread tag ("blockIdx.x" ...), -1 for vthread.* and
 * unknown tags. */
int tcu_thread_dim(const char *tag);

/* `f` with `body` (f itself when the body is its own): what the GPU passes
 * return (kernels.c). */
int tcu_with_body(tsl_arena *arena, const tsl_lowered_func *f, const tsl_stmt *body,
                  const tsl_lowered_func **out, tsl_diag *diag);

/* Cross-thread reductions (a reduce loop bound to threadIdx) as a per-thread
 * partial and a tsl_allreduce call every thread of the block makes
 * (allreduce.c has the rule). Returns `f` itself when there is none. */
int tcu_lower_allreduce(tsl_arena *arena, const tsl_lowered_func *f,
                        const tsl_lowered_func **out, tsl_diag *diag);

/* "warp" buffers as each lane's share in a local array (TVM's
 * LowerWarpMemory; warp.c has the rule): accesses to the lane's own
 * elements stay loads and stores, reads of another lane's become
 * tsl_warp_shfl calls, the warp-wide builtins (T.ptx_ldmatrix, T.ptx_mma,
 * T.mma_fill, T.mma_store) get the lane's offset. Returns `f` itself when
 * there is no warp buffer. */
int tcu_lower_warp(tsl_arena *arena, const tsl_lowered_func *f, const tsl_lowered_func **out,
                   tsl_diag *diag);

/* Insert `T.tvm_storage_sync("shared")` where a thread may read or
 * overwrite what another thread of its block wrote to (or read from)
 * shared memory since the last barrier (TVM's ThreadSync for the shared
 * scope; sync.c has the rule). Returns `f` itself when nothing is needed. */
int tcu_insert_syncs(tsl_arena *arena, const tsl_lowered_func *f, const tsl_lowered_func **out,
                     tsl_diag *diag);

/* A shared.dyn buffer's place in its kernel's dynamic shared memory. */
typedef struct tcu_dyn_slot {
  const tsl_buffer *buffer;
  int64_t offset; /* bytes, a multiple of 16 */
} tcu_dyn_slot;

/* One kernel: an outermost thread-bound loop of a lowered function and
 * everything inside it. */
typedef struct tcu_kernel {
  char name[160];                    /* "<prefix>_<func>_kernel<i>" */
  const tsl_stmt *root;              /* the outermost thread-bound FOR */
  const tsl_expr *extent[TCU_N_DIMS]; /* launch extents (NULL: 1) */
  tsl_vec buffers;                   /* const tsl_buffer *: parameters, in order */
  tsl_vec vars;                      /* const tsl_var *: scalar parameters */
  /* shared.dyn buffers, one after another (each 16-byte aligned, no reuse
   * between buffers whose lifetimes do not overlap), and their total: the
   * launch's dynamic shared memory */
  tsl_vec dyn_slots;                 /* tcu_dyn_slot */
  int64_t dyn_smem;
} tcu_kernel;

/* The kernels of `f` in host order. A store outside every kernel, a thread
 * loop whose tag one kernel binds with two different extents that are not
 * constants, a shared or local buffer allocated outside a kernel: errors
 * naming the buffer or loop. */
int tcu_find_kernels(tsl_arena *arena, const tsl_lowered_func *f, const char *prefix,
                     tsl_vec *kernels /* tcu_kernel */, tsl_diag *diag);
void tcu_kernels_free(tsl_vec *kernels);

/* ---- code generation (codegen_*.c, host.c) -------------------------------- */

/* One C or CUDA C text being written. */
typedef struct tcu_emitter {
  tsl_strbuf *sb;
  tsl_diag *diag;
  int rc;
  int host;  /* 1: host C for the system compiler; 0: CUDA C for NVRTC */
  int lane;  /* inside a vector store's loop over lanes l_ */
  int guard; /* inside a thread loop smaller than its launch extent */
  int wmma;  /* device: a tensor-core call was written (mma.h is needed) */
  int mma;   /* device: a warp-level mma call was written (tcu_prelude_mma) */
  const tsl_lowered_func *f;
  const tcu_kernel *kernel; /* device: the kernel being written */
  /* Writes a statement (%S of tcu_out): the device's or the host's. */
  void (*stmt)(struct tcu_emitter *em, const tsl_stmt *s);
  void *user; /* the writer's own state */
} tcu_emitter;

/* Append `fmt`, where %s is a string, %d an int, %e an expression, %S a
 * statement, %v a variable's name, %b a buffer's and %t a dtype's C type. */
void tcu_out(tcu_emitter *em, const char *fmt, ...);
void tcu_expr(tcu_emitter *em, const tsl_expr *e);
/* Serial loops, IF, LET and SEQ, alike on both sides; 0 for other kinds. */
int tcu_stmt_common(tcu_emitter *em, const tsl_stmt *s);
/* Record the first error: "cuda target: <what> '<name>' ... in function F". */
void tcu_fail(tcu_emitter *em, const char *what, const char *name);
/* The helpers generated code calls (floordiv, floormod, min, max, abs,
 * sigmoid): C for the host, C++ templates for the device. */
extern const char tcu_prelude_device[], tcu_prelude_host[];

/* Tensor-core fragments (codegen_wmma.c). A buffer of a wmma.* scope: */
int tcu_is_fragment(const tsl_buffer *b);
/* Its ALLOCATE as an array of nvcuda::wmma::fragment (shape and layout from
 * the builtins using it), then the body. */
void tcu_wmma_alloc(tcu_emitter *em, const tsl_stmt *alloc);
/* A WMMA builtin evaluated as a statement; 0 when `e` is not one. */
int tcu_wmma_stmt(tcu_emitter *em, const tsl_expr *e);
/* A warp-level tensor-core builtin (T.ptx_ldmatrix, T.ptx_mma, T.mma_fill,
 * T.mma_store) evaluated as a statement, as a call of a helper of
 * tcu_prelude_mma (codegen_mma.c); 0 when `e` is not one. */
int tcu_mma_stmt(tcu_emitter *em, const tsl_expr *e);
/* The device helpers of those calls (PTX inline assembly; the emulator of
 * tests/cuda/emu defines TSL_CUDA_EMULATED and its own). */
extern const char tcu_prelude_mma[];
/* T.tvm_access_ptr(T.type_annotation(t), B.data, offset, extent, mask). */
void tcu_access_ptr(tcu_emitter *em, const tsl_expr *e);

/* A lowered module made ready for the GPU: barriers inserted, kernels
 * found. Lives in the arena it was made in. */
typedef struct tcu_program {
  const char *prefix;
  uint32_t n_funcs;
  const tsl_lowered_func **funcs; /* with barriers */
  tsl_vec *kernels;               /* per function: tcu_kernel */
} tcu_program;

int tcu_program_make(tsl_arena *arena, const tsl_lowered_module *m, const char *prefix,
                     tcu_program *out, tsl_diag *diag);
void tcu_program_free(tcu_program *p);
/* CUDA C of every kernel of `p`, for NVRTC (codegen_stmt.c). */
int tcu_emit_device(const tcu_program *p, tsl_strbuf *out, tsl_diag *diag);
/* For the emulator of tests/cuda/emu (TESSEL_CUDA_EMULATE): per kernel
 * NAME, `extern "C" void NAME_emu(void **args)` calling it with the
 * launch's argument list. */
int tcu_emit_emu_wrappers(const tcu_program *p, tsl_strbuf *out, tsl_diag *diag);
/* C of the host side, for the system C compiler (host.c): per function
 * the natural entry "<prefix>_<name>" (buffers are device pointers) and
 * the packed one "<prefix>_<name>_packed", which load the kernels once per
 * CUDA context and launch them through libcuda (opened by the generated
 * code itself), plus "<prefix>_last_error" (the text of the last failure
 * in the calling thread) and "<prefix>_set_image". `embed` (may be NULL)
 * puts the image into the library (export); without it the library gets
 * its image through <prefix>_set_image before its first call. A failed
 * call returns the CUresult, or -1. */
int tcu_emit_host(const tcu_program *p, const tcu_image *embed, int32_t arch,
                  tsl_strbuf *out, tsl_diag *diag);
/* The C type of one element of dtype `t` in generated code ("float",
 * "half", "long long"; host code has no half types: "unsigned short"), or
 * NULL when there is none. */
const char *tcu_ctype(tsl_dtype t, int host);

/* ---- builds (build.c) ------------------------------------------------------- */

int tcu_build(tsl_target *t, const tsl_lowered_module *m, tsl_kernel **out,
              tsl_build_stats *stats, tsl_diag *diag);
tsl_packed_fn tcu_lookup(tsl_kernel *k, const char *name);
void tcu_kernel_free(tsl_kernel *k);
int tcu_export(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
               const char *path, const char *header_path, tsl_diag *diag);

extern const tsl_target_vtable tcu_vtable;
/* The default design space: TVM's cuda lists (space_defaults.c). */
extern const tsl_space_defaults tcu_space_defaults;

#endif /* TESSEL_TARGETS_CUDA_INTERNAL_H */
