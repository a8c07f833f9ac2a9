/*
 * Context, interned strings, arenas, diagnostics and text buffers.
 * The intern table is an open-addressing hash set of arena-held strings.
 */
#include "tessel/base.h"
#include "arena_internal.h"
#include "base_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ---- */

int tsl_diag_set(tsl_diag *diag, int status, const char *fmt, ...) {
  if (!diag)
    return status;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(diag->text, sizeof diag->text, fmt, ap);
  va_end(ap);
  diag->struct_size = sizeof *diag;
  diag->len = n < 0 ? 0 : (uint32_t)strlen(diag->text);
  return status;
}

void tsl_diag_append(tsl_diag *diag, const char *fmt, ...) {
  if (!diag)
    return;
  size_t len = strnlen(diag->text, sizeof diag->text);
  if (len + 1 >= sizeof diag->text)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(diag->text + len, sizeof diag->text - len, fmt, ap);
  va_end(ap);
  diag->len = (uint32_t)strlen(diag->text);
}

const char *tsl_status_name(int status) {
  switch (status) {
  case TSL_OK: return "ok";
  case TSL_ENOMEM: return "out of memory";
  case TSL_EPARSE: return "parse error";
  case TSL_EINVALID: return "invalid input";
  case TSL_EIO: return "i/o error";
  case TSL_EUNSUPPORTED: return "unsupported";
  case TSL_ERUNTIME: return "runtime error";
  case TSL_ENOTFOUND: return "not found";
  default: return "unknown error";
  }
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "tessel: out of memory (%zu bytes)\n", n);
    abort();
  }
  return p;
}

static void *xcalloc(size_t n) {
  void *p = calloc(1, n);
  if (!p) {
    fprintf(stderr, "tessel: out of memory (%zu bytes)\n", n);
    abort();
  }
  return p;
}

/* ---- random numbers ---- */

uint64_t tsl_rand_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t tsl_rand_below(uint64_t *state, uint64_t n) {
  return n ? tsl_rand_next(state) % n : 0;
}

double tsl_rand_unit(uint64_t *state) {
  return (double)(tsl_rand_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- arenas ---- */

typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
} arena_chunk;

struct tsl_arena {
  tsl_ctx *ctx;
  arena_chunk *head;
  arena_chunk *raw; /* tsl_arena_alloc_raw's chunks: never cleared */
  size_t bytes;
  const void **const_slots; /* arena_internal.h */
  size_t next_cap; /* a small arena's next chunk (doubling); 0: ARENA_CHUNK */
};

/* Standard chunks are 64 KiB with their header, carved 32 at a time from
 * 2 MiB slabs that may be backed by transparent huge pages, and never
 * handed back to the system: a chunk no arena holds waits in its context
 * (up to MAX_SPARE_CHUNKS, no lock) or in the process's pools for the next
 * arena. A search builds and frees thousands of short-lived schedules of
 * about 300 KiB; from malloc, clearing their fresh pages and the page
 * faults after every fork of a builder (each page the tuner writes next is
 * copied or faulted again) took 30-40% of the 128 matmul's search. A
 * process keeps its peak of standard chunks. */
enum { CHUNK_BYTES = 64 * 1024, SLAB_BYTES = 2 * 1024 * 1024, MAX_SPARE_CHUNKS = 256 };
#define ARENA_CHUNK (CHUNK_BYTES - sizeof(arena_chunk))

static arena_chunk *ctx_take_chunk(tsl_ctx *ctx);
static void ctx_keep_chunk(tsl_ctx *ctx, arena_chunk *c);
static void release_raw(tsl_arena *a);

/* The process's standard chunks that no context holds: zeroed ones, and
 * raw ones (tsl_arena_alloc_raw's, not cleared); contexts on other threads
 * share them, and the slab being carved, under the lock. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static arena_chunk *pool_zeroed, *pool_raw;

#if defined(__SANITIZE_ADDRESS__)
#define TSL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSL_ASAN 1
#endif
#endif

#ifndef TSL_ASAN
static unsigned char *slab_next; /* the slab being carved, and what is left of it */
static size_t slab_left;
#endif

/* A fresh chunk from the slab (zero, as mmap's pages are); the lock held.
 * Under AddressSanitizer each chunk is a block of its own instead, so that
 * a write past a chunk still lands in a red zone. */
static arena_chunk *slab_chunk(void) {
#ifdef TSL_ASAN
  arena_chunk *k = xcalloc(CHUNK_BYTES);
#else
  if (!slab_left) {
    /* twice the size, so that an aligned slab fits: huge pages need it */
    unsigned char *p = mmap(NULL, 2 * SLAB_BYTES, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      fprintf(stderr, "tessel: out of memory (a %d-byte slab of arena chunks)\n", SLAB_BYTES);
      abort();
    }
    unsigned char *a =
        (unsigned char *)(((uintptr_t)p + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1));
    if (a > p)
      munmap(p, (size_t)(a - p));
    munmap(a + SLAB_BYTES, (size_t)(p + 2 * SLAB_BYTES - (a + SLAB_BYTES)));
    madvise(a, SLAB_BYTES, MADV_HUGEPAGE); /* a hint: without it, small pages */
    slab_next = a;
    slab_left = SLAB_BYTES;
  }
  arena_chunk *k = (arena_chunk *)slab_next;
  slab_next += CHUNK_BYTES;
  slab_left -= CHUNK_BYTES;
#endif
  k->cap = ARENA_CHUNK;
  return k;
}

/* A chunk of the pool, or a fresh one when it is empty. */
static arena_chunk *pool_take(arena_chunk **pool) {
  pthread_mutex_lock(&pool_lock);
  arena_chunk *k = *pool;
  if (k)
    *pool = k->next;
  else
    k = slab_chunk();
  pthread_mutex_unlock(&pool_lock);
  return k;
}

/* The list from `first` to `last` given to the pool. */
static void pool_give(arena_chunk **pool, arena_chunk *first, arena_chunk *last) {
  if (!first)
    return;
  pthread_mutex_lock(&pool_lock);
  last->next = *pool;
  *pool = first;
  pthread_mutex_unlock(&pool_lock);
}

static arena_chunk *list_last(arena_chunk *k) {
  while (k && k->next)
    k = k->next;
  return k;
}

/* A chunk leaving its arena: a standard one kept, another freed. */
static void chunk_release(tsl_ctx *ctx, arena_chunk *c) {
  if (c->cap == ARENA_CHUNK)
    ctx_keep_chunk(ctx, c);
  else
    free(c);
}

tsl_arena *tsl_arena_new(tsl_ctx *ctx) {
  tsl_arena *a = xmalloc(sizeof *a);
  a->ctx = ctx;
  a->head = NULL;
  a->raw = NULL;
  a->bytes = 0;
  a->const_slots = NULL;
  a->next_cap = 0;
  return a;
}

tsl_arena *tsl_arena_new_small(tsl_ctx *ctx) {
  tsl_arena *a = tsl_arena_new(ctx);
  a->next_cap = 1024;
  return a;
}

void tsl_arena_free(tsl_arena *a) {
  if (!a)
    return;
  for (arena_chunk *c = a->head, *n; c; c = n) {
    n = c->next;
    chunk_release(a->ctx, c);
  }
  release_raw(a);
  free(a);
}

void tsl_arena_reset(tsl_arena *a) {
  arena_chunk *keep = NULL;
  for (arena_chunk *c = a->head, *n; c; c = n) {
    n = c->next;
    if (!keep && c->cap == ARENA_CHUNK) {
      memset(c->data, 0, c->used);
      c->used = 0;
      keep = c;
    } else {
      chunk_release(a->ctx, c);
    }
  }
  if (keep)
    keep->next = NULL;
  release_raw(a);
  a->head = keep;
  a->bytes = 0;
  a->const_slots = NULL;
}

tsl_ctx *tsl_arena_ctx(const tsl_arena *a) { return a->ctx; }

/* Memory past a chunk's `used` is always zero (fresh chunks come from
 * calloc or a slab, kept ones are cleared when their arena is freed), so handing out a
 * zeroed block is a pointer bump: one bulk clear per chunk instead of a
 * memset per node. */
__attribute__((noinline)) static void *arena_alloc_slow(tsl_arena *a, size_t size) {
  arena_chunk *c = a->head;
  int big = size > ARENA_CHUNK / 4;
  size_t chunk = a->next_cap ? a->next_cap : ARENA_CHUNK;
  size_t cap = big || size > chunk ? size : chunk;
  if (!big && a->next_cap) /* a small arena grows by doubling to the standard size */
    a->next_cap = a->next_cap * 2 >= ARENA_CHUNK ? 0 : a->next_cap * 2;
  arena_chunk *n = cap == ARENA_CHUNK ? ctx_take_chunk(a->ctx) : NULL;
  if (!n)
    n = xcalloc(sizeof *n + cap);
  n->used = 0;
  n->cap = cap;
  if (c && big) {
    /* big block: keep the current chunk as head for small allocations */
    n->next = c->next;
    c->next = n;
  } else {
    n->next = c;
    a->head = n;
  }
  n->used = size;
  a->bytes += size;
  return n->data;
}

void *tsl_arena_alloc(tsl_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  arena_chunk *c = a->head;
  if (__builtin_expect(!c || c->cap - c->used < size, 0))
    return arena_alloc_slow(a, size);
  void *p = c->data + c->used;
  c->used += size;
  a->bytes += size;
  return p;
}

const void **tsl_arena_const_slots(tsl_arena *a) {
  if (!a->const_slots)
    a->const_slots = tsl_arena_alloc(a, sizeof(void *) * TSL_ARENA_CONST_SLOTS);
  return a->const_slots;
}

void *tsl_arena_dup(tsl_arena *a, const void *src, size_t n) {
  void *p = tsl_arena_alloc(a, n);
  if (n)
    memcpy(p, src, n);
  return p;
}

char *tsl_arena_strdup(tsl_arena *a, const char *s) {
  return tsl_arena_dup(a, s, strlen(s) + 1);
}

size_t tsl_arena_bytes(const tsl_arena *a) { return a->bytes; }

/* ---- context and interning ---- */

struct tsl_ctx {
  arena_chunk *spare; /* chunk cache, see ctx_take_chunk */
  uint32_t n_spare;
  arena_chunk *raw_spare; /* raw chunks, see tsl_arena_alloc_raw */
  uint32_t n_raw_spare;
  tsl_arena *strings;
  const char **slots;
  size_t n_slots, n_used;
  uint32_t next_id;
};

tsl_ctx *tsl_ctx_new(void) {
  tsl_ctx *c = malloc(sizeof *c);
  if (!c)
    return NULL;
  c->spare = NULL;
  c->n_spare = 0;
  c->raw_spare = NULL;
  c->n_raw_spare = 0;
  c->strings = tsl_arena_new(c);
  c->n_slots = 1024;
  c->n_used = 0;
  c->slots = calloc(c->n_slots, sizeof *c->slots);
  c->next_id = 1;
  if (!c->slots) {
    tsl_arena_free(c->strings);
    free(c);
    return NULL;
  }
  return c;
}

void tsl_ctx_free(tsl_ctx *c) {
  if (!c)
    return;
  tsl_arena_free(c->strings);
  pool_give(&pool_zeroed, c->spare, list_last(c->spare));
  pool_give(&pool_raw, c->raw_spare, list_last(c->raw_spare));
  free(c->slots);
  free(c);
}

static arena_chunk *ctx_take_chunk(tsl_ctx *ctx) {
  arena_chunk *k = ctx ? ctx->spare : NULL;
  if (!k)
    return pool_take(&pool_zeroed);
  ctx->spare = k->next;
  ctx->n_spare--;
  return k;
}

static void ctx_keep_chunk(tsl_ctx *ctx, arena_chunk *k) {
  memset(k->data, 0, k->used);
  k->used = 0;
  if (!ctx || ctx->n_spare >= MAX_SPARE_CHUNKS) {
    k->next = NULL;
    pool_give(&pool_zeroed, k, k);
    return;
  }
  k->next = ctx->spare;
  ctx->spare = k;
  ctx->n_spare++;
}

/* Raw chunks: standard-size ones wait in the context (their own list, as
 * they are not zero) for the next arena's raw allocations. */
void *tsl_arena_alloc_raw(tsl_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  arena_chunk *c = a->raw;
  if (!c || c->cap - c->used < size) {
    size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
    arena_chunk *n = NULL;
    if (cap == ARENA_CHUNK && a->ctx && a->ctx->raw_spare) {
      n = a->ctx->raw_spare;
      a->ctx->raw_spare = n->next;
      a->ctx->n_raw_spare--;
    } else if (cap == ARENA_CHUNK) {
      n = pool_take(&pool_raw);
    } else {
      n = xmalloc(sizeof *n + cap);
    }
    n->used = 0;
    n->cap = cap;
    n->next = c;
    a->raw = c = n;
  }
  void *p = c->data + c->used;
  c->used += size;
  a->bytes += size;
  return p;
}

static void release_raw(tsl_arena *a) {
  for (arena_chunk *c = a->raw, *n; c; c = n) {
    n = c->next;
    if (c->cap == ARENA_CHUNK && a->ctx && a->ctx->n_raw_spare < MAX_SPARE_CHUNKS) {
      c->next = a->ctx->raw_spare;
      a->ctx->raw_spare = c;
      a->ctx->n_raw_spare++;
    } else if (c->cap == ARENA_CHUNK) {
      c->next = NULL;
      pool_give(&pool_raw, c, c);
    } else {
      free(c);
    }
  }
  a->raw = NULL;
}

uint32_t tsl_ctx_next_id(tsl_ctx *c) { return c->next_id++; }

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 1099511628211ull;
  }
  return h;
}

static void intern_grow(tsl_ctx *c) {
  size_t n = c->n_slots * 2;
  const char **slots = calloc(n, sizeof *slots);
  if (!slots) {
    fprintf(stderr, "tessel: out of memory growing the string table\n");
    abort();
  }
  for (size_t i = 0; i < c->n_slots; i++) {
    const char *s = c->slots[i];
    if (!s)
      continue;
    size_t j = hash_bytes(s, strlen(s)) & (n - 1);
    while (slots[j])
      j = (j + 1) & (n - 1);
    slots[j] = s;
  }
  free(c->slots);
  c->slots = slots;
  c->n_slots = n;
}

tsl_str tsl_intern_n(tsl_ctx *c, const char *s, size_t n) {
  if (2 * (c->n_used + 1) > c->n_slots)
    intern_grow(c);
  size_t j = hash_bytes(s, n) & (c->n_slots - 1);
  for (; c->slots[j]; j = (j + 1) & (c->n_slots - 1)) {
    const char *t = c->slots[j];
    if (strncmp(t, s, n) == 0 && t[n] == '\0')
      return t;
  }
  char *copy = tsl_arena_alloc(c->strings, n + 1);
  memcpy(copy, s, n);
  c->slots[j] = copy;
  c->n_used++;
  return copy;
}

tsl_str tsl_intern(tsl_ctx *c, const char *s) {
  return tsl_intern_n(c, s, strlen(s));
}

/* ---- text buffers ---- */

void tsl_strbuf_init(tsl_strbuf *sb) {
  sb->data = NULL;
  sb->len = sb->cap = 0;
}

void tsl_strbuf_free(tsl_strbuf *sb) {
  free(sb->data);
  tsl_strbuf_init(sb);
}

static void strbuf_reserve(tsl_strbuf *sb, size_t extra) {
  if (sb->len + extra + 1 <= sb->cap)
    return;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1)
    cap *= 2;
  char *p = realloc(sb->data, cap);
  if (!p) {
    fprintf(stderr, "tessel: out of memory (%zu bytes)\n", cap);
    abort();
  }
  sb->data = p;
  sb->cap = cap;
}

void tsl_strbuf_append_n(tsl_strbuf *sb, const char *s, size_t n) {
  strbuf_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void tsl_strbuf_append(tsl_strbuf *sb, const char *s) {
  tsl_strbuf_append_n(sb, s, strlen(s));
}

void tsl_strbuf_printf(tsl_strbuf *sb, const char *fmt, ...) {
  char small[256];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n > 0 && (size_t)n < sizeof small) {
    tsl_strbuf_append_n(sb, small, (size_t)n);
  } else if (n > 0) {
    strbuf_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
  }
  va_end(ap2);
}

char *tsl_strbuf_take(tsl_strbuf *sb) {
  char *p = sb->data;
  if (!p) {
    p = xmalloc(1);
    p[0] = '\0';
  }
  tsl_strbuf_init(sb);
  return p;
}

int tsl_read_file(const char *path, char **out, size_t *out_len,
                  tsl_diag *diag) {
  *out = NULL;
  if (out_len)
    *out_len = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot open file: %s", path,
                        strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    fclose(f);
    return tsl_diag_set(diag, TSL_EIO, "%s: error: is a folder; valid: a file", path);
  }
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    tsl_strbuf_append_n(&sb, buf, n);
  int err = ferror(f);
  fclose(f);
  if (err) {
    tsl_strbuf_free(&sb);
    return tsl_diag_set(diag, TSL_EIO, "%s: error: cannot read file", path);
  }
  if (out_len)
    *out_len = sb.len;
  *out = tsl_strbuf_take(&sb);
  return TSL_OK;
}

int tsl_mkdir_p(const char *path, tsl_diag *diag) {
  char *dir = strdup(path);
  if (!dir)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
  int rc = TSL_OK;
  for (char *p = dir + 1;; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char c = *p;
    *p = '\0';
    struct stat st;
    if (mkdir(dir, 0777) != 0 &&
        (errno != EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
      rc = tsl_diag_set(diag, TSL_EIO, "cannot create the folder %s: %s", dir,
                        errno == EEXIST ? "a file is in the way" : strerror(errno));
      break;
    }
    *p = c;
    if (!c)
      break;
  }
  free(dir);
  return rc;
}
