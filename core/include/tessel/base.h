/*
 * tessel/base.h — status codes, diagnostics, the context, arenas and
 * interned strings.
 *
 * Ownership model
 *   - A tsl_ctx owns the string intern table and hands out unique ids. It is
 *     the only mutable state tessel keeps; nothing is global. A context is
 *     not thread-safe: use one per thread, or lock around it.
 *   - A tsl_arena is a bump allocator bound to one context. IR nodes live in
 *     arenas and are immutable once built; freeing the arena frees every node
 *     built in it at once. An arena must not outlive its context.
 *   - Interned strings (tsl_str) live as long as the context. Two interned
 *     strings are equal exactly when their pointers are equal.
 *
 * Errors
 *   Fallible calls return an int status: TSL_OK (0) or a negative TSL_E*
 *   code, and take a caller-owned tsl_diag that receives a human-readable
 *   message. Messages about user input name file:line:col, quote the
 *   offending source line with a caret, and say what would be valid.
 */
#ifndef TESSEL_BASE_H
#define TESSEL_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TSL_API __attribute__((visibility("default")))
#define TSL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TSL_API
#define TSL_PRINTF(fmt, args)
#endif

/* Status codes. 0 is success; every failure is negative. */
enum {
  TSL_OK = 0,
  TSL_ENOMEM = -1,       /* allocation failed */
  TSL_EPARSE = -2,       /* syntax error in user input */
  TSL_EINVALID = -3,     /* well-formed input that breaks a semantic rule */
  TSL_EIO = -4,          /* file could not be read or written */
  TSL_EUNSUPPORTED = -5, /* valid input that this build cannot handle */
  TSL_ERUNTIME = -6,     /* failure while executing a program */
  TSL_ENOTFOUND = -7     /* a named object does not exist */
};

/* Caller-owned diagnostic buffer. `text` is always NUL-terminated; a
 * message longer than the buffer is truncated. Zero-initialise before use. */
typedef struct tsl_diag {
  uint32_t struct_size; /* sizeof(tsl_diag); informational */
  uint32_t len;         /* strlen(text) */
  char text[8192];
} tsl_diag;

/* Replace the diagnostic text (printf-style). NULL diag is allowed and
 * ignored. Returns `status` so callers can `return tsl_diag_set(d, code, ..)`. */
TSL_API int tsl_diag_set(tsl_diag *diag, int status, const char *fmt, ...)
    TSL_PRINTF(3, 4);
/* Append to the diagnostic text (printf-style). NULL diag is ignored. */
TSL_API void tsl_diag_append(tsl_diag *diag, const char *fmt, ...)
    TSL_PRINTF(2, 3);
/* Short name of a status code ("ok", "parse error", ...). */
TSL_API const char *tsl_status_name(int status);

/* ---- random numbers -------------------------------------------------------
 * splitmix64 over the caller's 64-bit state: every component that draws
 * (schedules' seeds, strategies, mutators, cost models) uses this stream, so
 * equal seeds give equal runs. */
TSL_API uint64_t tsl_rand_next(uint64_t *state);
/* Uniform in [0, n) (0 when n is 0), and in [0, 1) with 53 bits. */
TSL_API uint64_t tsl_rand_below(uint64_t *state, uint64_t n);
TSL_API double tsl_rand_unit(uint64_t *state);

/* ---- context and interned strings ------------------------------------ */

typedef struct tsl_ctx tsl_ctx;
typedef struct tsl_arena tsl_arena;

/* An interned, NUL-terminated string. Compare with ==. */
typedef const char *tsl_str;

/* New context, or NULL when out of memory. */
TSL_API tsl_ctx *tsl_ctx_new(void);
/* Free the context and its interned strings. All arenas of this context
 * must have been freed first. NULL is ignored. */
TSL_API void tsl_ctx_free(tsl_ctx *ctx);
/* Intern the string `s` (NUL-terminated) / the `n` bytes at `s`. Never
 * returns NULL (aborts on out-of-memory, an internal invariant). */
TSL_API tsl_str tsl_intern(tsl_ctx *ctx, const char *s);
TSL_API tsl_str tsl_intern_n(tsl_ctx *ctx, const char *s, size_t n);

/* ---- arenas ----------------------------------------------------------- */

/* New empty arena bound to `ctx`. */
TSL_API tsl_arena *tsl_arena_new(tsl_ctx *ctx);
/* Free every allocation of the arena at once. NULL is ignored. */
TSL_API void tsl_arena_free(tsl_arena *arena);
/* The context the arena belongs to. */
TSL_API tsl_ctx *tsl_arena_ctx(const tsl_arena *arena);
/* `size` zeroed bytes aligned to 16. Never returns NULL (aborts on
 * out-of-memory). */
TSL_API void *tsl_arena_alloc(tsl_arena *arena, size_t size);
/* Copy of `n` bytes / of a NUL-terminated string into the arena. */
TSL_API void *tsl_arena_dup(tsl_arena *arena, const void *src, size_t n);
TSL_API char *tsl_arena_strdup(tsl_arena *arena, const char *s);

#define TSL_NEW(arena, type) ((type *)tsl_arena_alloc((arena), sizeof(type)))
#define TSL_NEW_ARRAY(arena, type, n)                                          \
  ((type *)tsl_arena_alloc((arena), sizeof(type) * (size_t)(n)))

/* ---- growable text buffer (heap, not arena) --------------------------- */

typedef struct tsl_strbuf {
  char *data; /* NUL-terminated when len > 0 or after any append */
  size_t len;
  size_t cap;
} tsl_strbuf;

TSL_API void tsl_strbuf_init(tsl_strbuf *sb);
TSL_API void tsl_strbuf_free(tsl_strbuf *sb);
TSL_API void tsl_strbuf_append(tsl_strbuf *sb, const char *s);
TSL_API void tsl_strbuf_append_n(tsl_strbuf *sb, const char *s, size_t n);
TSL_API void tsl_strbuf_printf(tsl_strbuf *sb, const char *fmt, ...)
    TSL_PRINTF(2, 3);
/* Hand over the heap string (caller frees with free()); resets sb. */
TSL_API char *tsl_strbuf_take(tsl_strbuf *sb);

/* Read a whole file into a malloc'ed NUL-terminated buffer. On failure
 * returns TSL_EIO with a message naming the file and the OS reason. */
TSL_API int tsl_read_file(const char *path, char **out, size_t *out_len,
                          tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_BASE_H */
