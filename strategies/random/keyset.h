/*
 * strategies/random/keyset.h — a set of heap strings (decision keys), the
 * strategy's memory of what it proposed in this run. Folder-internal.
 */
#ifndef TESSEL_RANDOM_KEYSET_H
#define TESSEL_RANDOM_KEYSET_H

#include <stdint.h>

typedef struct rs_keyset {
  char **slots; /* open addressing; NULL = empty */
  uint32_t cap; /* power of two, 0 before the first insert */
  uint32_t n;
} rs_keyset;

/* 1 when `key` is in the set. */
int rs_keyset_has(const rs_keyset *s, const char *key);
/* Insert `key` (the set takes ownership of the heap string). Returns 0,
 * or -1 when out of memory (the key is then not taken). The key must not
 * be in the set already. */
int rs_keyset_add(rs_keyset *s, char *key);
/* Free every key and the table; the set is empty afterwards. */
void rs_keyset_clear(rs_keyset *s);

#endif
