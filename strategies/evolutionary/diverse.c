/*
 * strategies/evolutionary/diverse.c — a batch that covers the most
 * decisions (diverse.h).
 */
#include "diverse.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bits, continuing from h */
static uint64_t fnv(uint64_t h, const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* The pairs of one key as hashes (never 0), appended to out; the count. */
static uint32_t key_pairs(const char *key, uint64_t *out) {
  if (!key || key[0] != '[')
    return 0;
  const char *at = strrchr(key, '@');
  uint64_t digest = fnv(0xcbf29ce484222325ull, at ? at : "", at ? strlen(at) : 0);
  uint32_t n = 0;
  int depth = 0;
  const char *start = NULL;
  for (const char *p = key; *p && p != at; p++) {
    if (*p == '[' && depth++ == 1)
      start = p;
    else if (*p == ']' && --depth == 1 && start) {
      uint64_t h = fnv(digest, start, (size_t)(p + 1 - start));
      out[n++] = h ? h : 1;
      start = NULL;
    }
  }
  return n;
}

/* Pairs of a key: at most one per '[' in it. */
static uint32_t max_pairs(const char *key) {
  uint32_t n = 0;
  for (const char *p = key; p && *p; p++)
    n += *p == '[';
  return n;
}

typedef struct pair_set {
  uint64_t *slot; /* open addressing; 0 is empty */
  uint32_t mask;
} pair_set;

static int set_has(const pair_set *s, uint64_t h) {
  for (uint32_t i = (uint32_t)h & s->mask;; i = (i + 1) & s->mask) {
    if (s->slot[i] == h)
      return 1;
    if (!s->slot[i])
      return 0;
  }
}

static void set_add(pair_set *s, uint64_t h) {
  uint32_t i = (uint32_t)h & s->mask;
  while (s->slot[i] && s->slot[i] != h)
    i = (i + 1) & s->mask;
  s->slot[i] = h;
}

int evo_diverse_order(const char *const *keys, uint32_t n, uint32_t n_pick, uint32_t *order) {
  for (uint32_t i = 0; i < n; i++)
    order[i] = i;
  if (n_pick > n)
    n_pick = n;
  if (n < 2 || !n_pick)
    return 0;
  uint32_t *first = malloc((n + 1) * sizeof *first); /* key i's pairs: first[i]..first[i+1] */
  unsigned char *taken = calloc(n, 1);
  size_t total = 0;
  for (uint32_t i = 0; i < n; i++)
    total += max_pairs(keys[i]);
  uint64_t *pairs = malloc((total ? total : 1) * sizeof *pairs);
  uint32_t cap = 16;
  while (cap < 2 * total)
    cap *= 2;
  pair_set covered = {calloc(cap, sizeof(uint64_t)), cap - 1};
  int rc = 0;
  if (!first || !taken || !pairs || !covered.slot) {
    rc = -1;
    goto done;
  }
  first[0] = 0;
  for (uint32_t i = 0; i < n; i++)
    first[i + 1] = first[i] + key_pairs(keys[i], pairs + first[i]);
  for (uint32_t k = 0; k < n_pick; k++) {
    uint32_t best = n, best_gain = 0;
    for (uint32_t i = 0; i < n; i++) {
      if (taken[i])
        continue;
      uint32_t gain = 0;
      for (uint32_t j = first[i]; j < first[i + 1]; j++)
        gain += !set_has(&covered, pairs[j]);
      if (best == n || gain > best_gain) {
        best = i;
        best_gain = gain;
      }
    }
    taken[best] = 1;
    order[k] = best;
    for (uint32_t j = first[best]; j < first[best + 1]; j++)
      set_add(&covered, pairs[j]);
  }
  for (uint32_t i = 0, k = n_pick; i < n; i++)
    if (!taken[i])
      order[k++] = i;
done:
  free(first);
  free(taken);
  free(pairs);
  free(covered.slot);
  return rc;
}
