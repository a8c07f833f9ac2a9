/*
 * The hash map (insertion-ordered entries + an open-addressing index of
 * entry numbers, linear probing) and the growable array.
 */
#include "tessel/container.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *grow(tsl_arena *arena, void *old, size_t old_bytes,
                  size_t new_bytes) {
  if (arena) {
    void *p = tsl_arena_alloc(arena, new_bytes);
    if (old_bytes)
      memcpy(p, old, old_bytes);
    return p;
  }
  void *p = realloc(old, new_bytes);
  if (!p) {
    fprintf(stderr, "tessel: out of memory (%zu bytes)\n", new_bytes);
    abort();
  }
  return p;
}

/* ---- map ---- */

static uint32_t hash_ptr(const void *k) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (uint32_t)x;
}

void tsl_map_init(tsl_map *m, tsl_arena *arena) {
  memset(m, 0, sizeof *m);
  m->arena = arena;
}

void tsl_map_free(tsl_map *m) {
  tsl_arena *a = m->arena;
  if (!a)
    free(m->entries); /* the slots share its block */
  tsl_map_init(m, a);
}

void tsl_map_clear(tsl_map *m) {
  m->n = m->n_entries = 0;
  if (m->slots)
    memset(m->slots, 0, sizeof *m->slots * m->n_slots);
}

/* Slot index holding `key`, or the empty slot where it would go. */
static uint32_t probe(const tsl_map *m, const void *key) {
  uint32_t mask = m->n_slots - 1, i = hash_ptr(key) & mask;
  for (;;) {
    uint32_t e = m->slots[i];
    if (!e || m->entries[e - 1].key == key)
      return i;
    i = (i + 1) & mask;
  }
}

/* Rebuild the index over live entries (compacting deleted ones). A new
 * size takes one block: room for n_slots / 2 entries (the most the load
 * limit of tsl_map_put allows), then the slots. */
static void rehash(tsl_map *m, uint32_t n_slots) {
  tsl_map_entry *entries = m->entries;
  if (n_slots != m->n_slots) {
    size_t eb = sizeof *entries * (n_slots / 2), sb = sizeof *m->slots * n_slots;
    entries = m->arena ? tsl_arena_alloc(m->arena, eb + sb) : grow(NULL, NULL, 0, eb + sb);
    m->slots = (uint32_t *)(void *)((char *)entries + eb);
    m->n_slots = n_slots;
    m->cap_entries = n_slots / 2;
  }
  uint32_t live = 0;
  for (uint32_t i = 0; i < m->n_entries; i++)
    if (m->entries[i].key)
      entries[live++] = m->entries[i];
  if (entries != m->entries) {
    if (!m->arena)
      free(m->entries);
    m->entries = entries;
  }
  m->n_entries = live;
  memset(m->slots, 0, sizeof *m->slots * n_slots);
  for (uint32_t i = 0; i < live; i++)
    m->slots[probe(m, m->entries[i].key)] = i + 1;
}

int tsl_map_put(tsl_map *m, const void *key, void *val) {
  uint32_t s = 0;
  if (m->n_slots) {
    s = probe(m, key);
    if (m->slots[s]) {
      m->entries[m->slots[s] - 1].val = val;
      return 0;
    }
  }
  /* keep the index at most half full, counting deleted entries */
  if ((m->n_entries + 1) * 2 > m->n_slots) {
    uint32_t ns = m->n_slots ? m->n_slots : 16;
    while ((m->n + 1) * 4 > ns)
      ns *= 2;
    rehash(m, ns);
    s = probe(m, key);
  }
  m->entries[m->n_entries] = (tsl_map_entry){key, val};
  m->slots[s] = ++m->n_entries;
  m->n++;
  return 1;
}

/* The entry of `key`, or NULL. The public lookups share it inlined (a
 * call between TSL_API names goes through the PLT). */
static inline tsl_map_entry *lookup(const tsl_map *m, const void *key) {
  if (!m->n)
    return NULL;
  uint32_t mask = m->n_slots - 1, i = hash_ptr(key) & mask;
  for (;;) {
    uint32_t e = m->slots[i];
    if (!e)
      return NULL;
    if (m->entries[e - 1].key == key)
      return &m->entries[e - 1];
    i = (i + 1) & mask;
  }
}

int tsl_map_find(const tsl_map *m, const void *key, void **val) {
  const tsl_map_entry *e = lookup(m, key);
  if (e && val)
    *val = e->val;
  return e != NULL;
}

void *tsl_map_get(const tsl_map *m, const void *key) {
  const tsl_map_entry *e = lookup(m, key);
  return e ? e->val : NULL;
}

intptr_t tsl_map_get_int(const tsl_map *m, const void *key, intptr_t missing) {
  const tsl_map_entry *e = lookup(m, key);
  return e ? (intptr_t)e->val : missing;
}

int tsl_map_del(tsl_map *m, const void *key) {
  if (!m->n)
    return 0;
  uint32_t s = probe(m, key);
  if (!m->slots[s])
    return 0;
  /* the slot stays as a tombstone (its entry's key never matches) so
   * that probe chains through it stay intact until the next rehash */
  m->entries[m->slots[s] - 1].key = NULL;
  m->n--;
  return 1;
}

int tsl_map_next(const tsl_map *m, uint32_t *pos, const void **key, void **val) {
  while (*pos < m->n_entries) {
    const tsl_map_entry *e = &m->entries[(*pos)++];
    if (e->key) {
      if (key)
        *key = e->key;
      if (val)
        *val = e->val;
      return 1;
    }
  }
  return 0;
}

tsl_map_binding tsl_map_bind(tsl_map *m, const void *key, void *val) {
  tsl_map_binding b = {key, NULL, 0};
  b.had = tsl_map_find(m, key, &b.prev);
  tsl_map_put(m, key, val);
  return b;
}

void tsl_map_unbind(tsl_map *m, const tsl_map_binding *b) {
  if (b->had)
    tsl_map_put(m, b->key, b->prev);
  else
    tsl_map_del(m, b->key);
}

/* ---- vec ---- */

void tsl_vec_init(tsl_vec *v, size_t elem_size, tsl_arena *arena) {
  memset(v, 0, sizeof *v);
  v->elem_size = (uint32_t)elem_size;
  v->arena = arena;
}

void tsl_vec_free(tsl_vec *v) {
  if (!v->arena)
    free(v->data);
  v->data = NULL;
  v->len = v->cap = 0;
}

static void vec_reserve(tsl_vec *v, uint32_t n) {
  if (n <= v->cap)
    return;
  uint32_t cap = v->cap ? v->cap : 8;
  while (cap < n)
    cap *= 2;
  v->data = grow(v->arena, v->data, (size_t)v->elem_size * v->len,
                 (size_t)v->elem_size * cap);
  v->cap = cap;
}

void tsl_vec_reserve(tsl_vec *v, uint32_t n) { vec_reserve(v, n); }

void *tsl_vec_push(tsl_vec *v) {
  if (v->len == v->cap)
    vec_reserve(v, v->len + 1);
  void *slot = (char *)v->data + (size_t)v->elem_size * v->len++;
  memset(slot, 0, v->elem_size);
  return slot;
}

void tsl_vec_append(tsl_vec *v, const void *src, uint32_t n) {
  if (!n)
    return;
  vec_reserve(v, v->len + n);
  memcpy((char *)v->data + (size_t)v->elem_size * v->len, src,
         (size_t)v->elem_size * n);
  v->len += n;
}

void *tsl_vec_dup(const tsl_vec *v, tsl_arena *arena) {
  if (!v->len)
    return NULL;
  return tsl_arena_dup(arena, v->data, (size_t)v->elem_size * v->len);
}

/* ---- logged bindings ---- */

void tsl_map_bind_logged(tsl_vec *log, tsl_map *m, const void *key, void *val) {
  tsl_map_logged *x = tsl_vec_push(log);
  x->map = m;
  x->b = tsl_map_bind(m, key, val);
}

void tsl_map_unbind_to(tsl_vec *log, uint32_t mark) {
  while (log->len > mark) {
    tsl_map_logged *x = &TSL_VEC_LAST(log, tsl_map_logged);
    tsl_map_unbind(x->map, &x->b);
    log->len--;
  }
}
