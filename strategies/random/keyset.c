/*
 * strategies/random/keyset.c — an open-addressing hash set of decision
 * keys (FNV-1a, linear probing, grown at 1/2 load).
 */
#include "keyset.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_key(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 1099511628211ull;
  }
  return h;
}

int rs_keyset_has(const rs_keyset *s, const char *key) {
  if (!s->cap)
    return 0;
  uint32_t mask = s->cap - 1;
  for (uint32_t i = (uint32_t)hash_key(key) & mask;; i = (i + 1) & mask) {
    if (!s->slots[i])
      return 0;
    if (strcmp(s->slots[i], key) == 0)
      return 1;
  }
}

static void put(char **slots, uint32_t cap, char *key) {
  uint32_t i = (uint32_t)hash_key(key) & (cap - 1);
  while (slots[i])
    i = (i + 1) & (cap - 1);
  slots[i] = key;
}

int rs_keyset_add(rs_keyset *s, char *key) {
  if ((s->n + 1) * 2 > s->cap) {
    uint32_t cap = s->cap ? s->cap * 2 : 64;
    char **slots = calloc(cap, sizeof *slots);
    if (!slots)
      return -1;
    for (uint32_t i = 0; i < s->cap; i++)
      if (s->slots[i])
        put(slots, cap, s->slots[i]);
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
  }
  put(s->slots, s->cap, key);
  s->n++;
  return 0;
}

void rs_keyset_clear(rs_keyset *s) {
  for (uint32_t i = 0; i < s->cap; i++)
    free(s->slots[i]);
  free(s->slots);
  s->slots = NULL;
  s->cap = s->n = 0;
}
