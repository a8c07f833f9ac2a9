/*
 * tsl_map and tsl_vec: against a reference model under random operations,
 * heap and arena storage, insertion-ordered iteration, tombstones.
 */
#include "tap.h"
#include "tessel/container.h"

#include <stdint.h>

#define NKEYS 3000

static uint64_t rng = 88172645463325252ULL;
static uint32_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)rng;
}

/* Random puts/dels/gets on a map vs. arrays indexed by key number. */
static void map_model(tsl_arena *arena, const char *what) {
  static char keys[NKEYS];
  static int present[NKEYS];
  static intptr_t vals[NKEYS];
  memset(present, 0, sizeof present);
  tsl_map m;
  tsl_map_init(&m, arena);
  int bad = 0, n = 0;
  for (int step = 0; step < 60000; step++) {
    uint32_t k = next_rand() % NKEYS, op = next_rand() % 4;
    if (op < 2) {
      intptr_t v = (intptr_t)next_rand();
      int was_new = tsl_map_put(&m, &keys[k], TSL_MAP_INT(v));
      bad += was_new != !present[k];
      n += !present[k];
      present[k] = 1;
      vals[k] = v;
    } else if (op == 2) {
      int had = tsl_map_del(&m, &keys[k]);
      bad += had != present[k];
      n -= present[k];
      present[k] = 0;
    } else {
      void *v = NULL;
      int f = tsl_map_find(&m, &keys[k], &v);
      bad += f != present[k] || (f && (intptr_t)v != vals[k]);
    }
    bad += (int)m.n != n;
  }
  ok(!bad, "%s map: 60000 random put/del/find agree with the model", what);
  int seen = 0, wrong = 0;
  const void *key;
  void *val;
  for (uint32_t pos = 0; tsl_map_next(&m, &pos, &key, &val);) {
    int k = (int)((const char *)key - keys);
    seen++;
    wrong += !present[k] || (intptr_t)val != vals[k];
  }
  ok(seen == n && !wrong, "%s map: iteration visits the %d live entries", what, n);
  tsl_map_clear(&m);
  ok(m.n == 0 && !tsl_map_get(&m, &keys[0]), "%s map: clear empties it", what);
  tsl_map_free(&m);
}

static void map_order(void) {
  tsl_map m = {0};
  static int xs[10];
  for (int i = 9; i >= 0; i--)
    tsl_map_put(&m, &xs[i], TSL_MAP_INT(i));
  tsl_map_del(&m, &xs[5]);
  tsl_map_put(&m, &xs[5], TSL_MAP_INT(55));
  tsl_map_put(&m, &xs[9], TSL_MAP_INT(99));
  char got[128] = "";
  void *v;
  for (uint32_t pos = 0; tsl_map_next(&m, &pos, NULL, &v);)
    snprintf(got + strlen(got), sizeof got - strlen(got), "%d ", (int)(intptr_t)v);
  is_str(got, "99 8 7 6 4 3 2 1 0 55 ",
         "iteration follows insertion order; replacing keeps the place, "
         "re-adding a deleted key goes last");
  ok(tsl_map_get_int(&m, &xs[4], -1) == 4 && tsl_map_get_int(&m, TSL_MAP_KEY(7), -1) == -1,
     "get_int: present value and the default for a missing key");
  ok(tsl_map_find(&m, &xs[3], NULL) == 1, "find with a NULL value pointer");
  tsl_map_put(&m, TSL_MAP_KEY(12345), NULL);
  void *nv = (void *)1;
  ok(tsl_map_find(&m, TSL_MAP_KEY(12345), &nv) && nv == NULL,
     "a NULL value is told apart from a missing key");
  tsl_map_free(&m);
}

/* Scoped bindings: nested binds of one key undo to the previous value,
 * then to its absence; a key bound while present keeps its place. */
static void map_bindings(void) {
  tsl_map m = {0};
  static int k[2];
  tsl_map_put(&m, &k[1], TSL_MAP_INT(10));
  tsl_map_binding outer = tsl_map_bind(&m, &k[0], TSL_MAP_INT(1));
  tsl_map_binding inner = tsl_map_bind(&m, &k[0], TSL_MAP_INT(2));
  tsl_map_binding shadow = tsl_map_bind(&m, &k[1], TSL_MAP_INT(20));
  ok(tsl_map_get_int(&m, &k[0], -1) == 2 && tsl_map_get_int(&m, &k[1], -1) == 20,
     "bind: the innermost bindings are visible");
  ok(!outer.had && inner.had && inner.prev == TSL_MAP_INT(1) && shadow.had,
     "bind: records whether the key was there and its value");
  tsl_map_unbind(&m, &shadow);
  tsl_map_unbind(&m, &inner);
  ok(tsl_map_get_int(&m, &k[0], -1) == 1 && tsl_map_get_int(&m, &k[1], -1) == 10,
     "unbind: the previous values are back");
  tsl_map_unbind(&m, &outer);
  ok(!tsl_map_find(&m, &k[0], NULL) && m.n == 1, "unbind: a key bound while absent is gone");
  tsl_map_free(&m);
}

/* Logged bindings over two maps: undoing to a mark restores both, newest
 * first, and leaves the bindings made before the mark. */
static void map_logged(void) {
  tsl_map a = {0}, b = {0};
  static int k[3];
  tsl_vec log;
  tsl_vec_init(&log, sizeof(tsl_map_logged), NULL);
  tsl_map_put(&a, &k[0], TSL_MAP_INT(1));
  tsl_map_bind_logged(&log, &a, &k[1], TSL_MAP_INT(2));
  uint32_t mark = log.len;
  tsl_map_bind_logged(&log, &a, &k[0], TSL_MAP_INT(10));
  tsl_map_bind_logged(&log, &b, &k[0], TSL_MAP_INT(20));
  tsl_map_bind_logged(&log, &a, &k[0], TSL_MAP_INT(11));
  tsl_map_bind_logged(&log, &b, &k[2], TSL_MAP_INT(30));
  ok(log.len == 5 && tsl_map_get_int(&a, &k[0], -1) == 11 &&
         tsl_map_get_int(&b, &k[2], -1) == 30,
     "bind_logged: the newest bindings are visible, each logged");
  tsl_map_unbind_to(&log, mark);
  ok(log.len == mark && tsl_map_get_int(&a, &k[0], -1) == 1 &&
         tsl_map_get_int(&a, &k[1], -1) == 2 && b.n == 0,
     "unbind_to: both maps back as at the mark, earlier bindings kept");
  tsl_map_unbind_to(&log, 0);
  ok(log.len == 0 && a.n == 1 && !tsl_map_find(&a, &k[1], NULL),
     "unbind_to 0: every logged binding undone");
  tsl_vec_free(&log);
  tsl_map_free(&a);
  tsl_map_free(&b);
}

static void vec_tests(tsl_arena *arena, const char *what) {
  tsl_vec v;
  tsl_vec_init(&v, sizeof(int64_t), arena);
  for (int64_t i = 0; i < 1000; i++)
    TSL_VEC_PUSH(&v, int64_t, i * i);
  int bad = 0;
  for (uint32_t i = 0; i < v.len; i++)
    bad += TSL_VEC_AT(&v, int64_t, i) != (int64_t)i * i;
  ok(v.len == 1000 && !bad, "%s vec: 1000 pushes read back", what);
  int64_t more[3] = {-1, -2, -3};
  tsl_vec_append(&v, more, 3);
  ok(v.len == 1003 && TSL_VEC_LAST(&v, int64_t) == -3, "%s vec: append", what);
  int64_t *z = tsl_vec_push(&v);
  ok(*z == 0, "%s vec: push gives a zeroed slot", what);
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a2 = tsl_arena_new(ctx);
  int64_t *copy = tsl_vec_dup(&v, a2);
  ok(copy[999] == 999 * 999 && copy[1001] == -2, "%s vec: dup copies", what);
  tsl_vec_free(&v);
  ok(v.len == 0 && !tsl_vec_dup(&v, a2), "%s vec: free empties; dup of empty is NULL",
     what);
  tsl_arena_free(a2);
  tsl_ctx_free(ctx);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  map_model(NULL, "heap");
  map_model(arena, "arena");
  map_order();
  map_bindings();
  map_logged();
  vec_tests(NULL, "heap");
  vec_tests(arena, "arena");
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return tap_done();
}
