/*
 * tessel/container.h — the one hash map and the one growable array every
 * part of tessel uses (primitives, lowering passes, rules, analyses).
 *
 * Storage
 *   Both containers take an optional arena at init. With an arena, storage
 *   comes from it (growth abandons the old block to the arena) and nothing
 *   needs freeing: the right choice inside a schedule primitive or a pass
 *   whose results live in that arena anyway. With NULL, storage is on the
 *   heap and the owner calls tsl_map_free / tsl_vec_free. Allocation failure
 *   aborts (an internal invariant, as for arenas).
 *
 * Threads
 *   A container is used by one thread at a time.
 */
#ifndef TESSEL_CONTAINER_H
#define TESSEL_CONTAINER_H

#include "tessel/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- hash map ------------------------------------------------------------
 * Keys are non-NULL pointers compared by address (IR nodes, variables,
 * buffers, interned strings) or nonzero integers cast with TSL_MAP_KEY.
 * Values are pointers (NULL is a valid value: use tsl_map_find to tell it
 * from a missing key) or integers through TSL_MAP_INT / tsl_map_get_int.
 * Iteration order is the order of insertion (deleted keys skipped), so
 * results never depend on addresses. */
typedef struct tsl_map {
  tsl_arena *arena;    /* NULL: heap */
  uint32_t n;          /* live entries */
  uint32_t n_entries;  /* entries used, deleted included */
  uint32_t cap_entries;
  uint32_t n_slots;    /* power of two, or 0 */
  struct tsl_map_entry *entries; /* insertion order */
  uint32_t *slots;     /* 0 empty, else entry index + 1 */
} tsl_map;

typedef struct tsl_map_entry {
  const void *key; /* NULL: deleted */
  void *val;
} tsl_map_entry;

#define TSL_MAP_KEY(i) ((const void *)(uintptr_t)(i))
#define TSL_MAP_INT(i) ((void *)(intptr_t)(i))

/* Empty map; `arena` may be NULL (heap). A zeroed tsl_map is an empty heap
 * map too. */
TSL_API void tsl_map_init(tsl_map *m, tsl_arena *arena);
/* Release heap storage (no-op for arena maps) and reset to empty. */
TSL_API void tsl_map_free(tsl_map *m);
/* Remove every entry, keeping the storage. */
TSL_API void tsl_map_clear(tsl_map *m);
/* Insert or replace; returns 1 when the key was new. */
TSL_API int tsl_map_put(tsl_map *m, const void *key, void *val);
/* The value of `key`, or NULL when missing. */
TSL_API void *tsl_map_get(const tsl_map *m, const void *key);
TSL_API intptr_t tsl_map_get_int(const tsl_map *m, const void *key,
                                 intptr_t missing);
/* 1 when `key` is present (its value in *val when val is not NULL). */
TSL_API int tsl_map_find(const tsl_map *m, const void *key, void **val);
/* Remove `key`; returns 1 when it was present. */
TSL_API int tsl_map_del(tsl_map *m, const void *key);
/* Iterate: `*pos` starts at 0; returns 0 at the end.
 *   for (uint32_t pos = 0; tsl_map_next(&m, &pos, &k, &v);) ... */
TSL_API int tsl_map_next(const tsl_map *m, uint32_t *pos, const void **key,
                         void **val);

/* Scoped bindings: a binding holds for a scope of a walk (a let body, a
 * loop, a block) and is undone afterwards, leaving the key's previous entry
 * (or its absence) as it was. Undo bindings in reverse order of making.
 *   tsl_map_binding b = tsl_map_bind(&vars, v, e);
 *   ... the scope ...
 *   tsl_map_unbind(&vars, &b); */
typedef struct tsl_map_binding {
  const void *key;
  void *prev; /* the previous value, when `had` */
  int had;    /* the key was present */
} tsl_map_binding;

TSL_API tsl_map_binding tsl_map_bind(tsl_map *m, const void *key, void *val);
TSL_API void tsl_map_unbind(tsl_map *m, const tsl_map_binding *b);

/* ---- growable array -------------------------------------------------------
 * Elements of a fixed size, contiguous in `data`; push returns a zeroed
 * slot. Pointers into `data` are invalidated by the next push.
 *   tsl_vec v; tsl_vec_init(&v, sizeof(const tsl_stmt *), arena);
 *   TSL_VEC_PUSH(&v, const tsl_stmt *, s);
 *   const tsl_stmt **items = TSL_VEC_DATA(&v, const tsl_stmt *); */
typedef struct tsl_vec {
  void *data;
  uint32_t len, cap;
  uint32_t elem_size;
  tsl_arena *arena; /* NULL: heap */
} tsl_vec;

TSL_API void tsl_vec_init(tsl_vec *v, size_t elem_size, tsl_arena *arena);
TSL_API void tsl_vec_free(tsl_vec *v);
/* Append one zeroed element and return its address. */
TSL_API void *tsl_vec_push(tsl_vec *v);
/* Append `n` elements copied from `src`. */
TSL_API void tsl_vec_append(tsl_vec *v, const void *src, uint32_t n);
/* Room for at least `n` elements in total. */
TSL_API void tsl_vec_reserve(tsl_vec *v, uint32_t n);
/* The elements copied into `arena` (exact length; NULL when empty), for
 * handing a finished list to an IR builder or a caller. */
TSL_API void *tsl_vec_dup(const tsl_vec *v, tsl_arena *arena);

#define TSL_VEC_PUSH(v, type, x) (*(type *)tsl_vec_push(v) = (x))
#define TSL_VEC_DATA(v, type) ((type *)(v)->data)
#define TSL_VEC_AT(v, type, i) (((type *)(v)->data)[i])
#define TSL_VEC_LAST(v, type) (((type *)(v)->data)[(v)->len - 1])

/* ---- scoped bindings with a log --------------------------------------------
 * Logged bindings, for scopes that bind a varying number of keys in one or
 * more maps (a block's iter vars and buffers): each binding is appended to
 * `log`, a tsl_vec of tsl_map_logged (any storage), and tsl_map_unbind_to
 * undoes, newest first, every binding logged after `mark` (a log length
 * taken when the scope began).
 *   uint32_t mark = log.len;
 *   tsl_map_bind_logged(&log, &vars, v, e); ...
 *   tsl_map_unbind_to(&log, mark); */
typedef struct tsl_map_logged {
  tsl_map *map;
  tsl_map_binding b;
} tsl_map_logged;

TSL_API void tsl_map_bind_logged(tsl_vec *log, tsl_map *m, const void *key,
                                 void *val);
TSL_API void tsl_map_unbind_to(tsl_vec *log, uint32_t mark);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_CONTAINER_H */
