/*
 * tests/db/test_db_migrate.c — candidate keys (tsl_trace_key) and the
 * databases of the key format before them: a key tells apart two sketches
 * that sample at the same instruction indices and a changed annotation,
 * is kept with the trace until it changes, and is the same before and
 * after postprocessing; a schema-1 database (keys without the digest) gets
 * its keys recomputed when opened for writing (read-only opens leave it
 * alone); a JSON-lines file with old keys imports under the new ones.
 */
#include <sqlite3.h>
#include <unistd.h>

#include "db_fixture.h"
#include "db_raw.h"
#include "tap.h"
#include "test_programs.h"


/* Two sketches, as MultiLevelTiling's: the same samples, the cache-write
 * block under j0 or under i0; then the parallel limit annotated. */
static tsl_schedule *sketch(const fx_prog *p, const char *at, int jobs, int post) {
  char src[1024];
  snprintf(src, sizeof src,
           "b = sch.get_block(\"C\")\n"
           "root = sch.get_block(\"root\")\n"
           "i, j, k = sch.get_loops(b)\n"
           "vi = sch.sample_perfect_tile(loop=i, n=2, max_innermost_factor=16, decision=[4, 4])\n"
           "i0, i1 = sch.split(loop=i, factors=vi)\n"
           "vj = sch.sample_perfect_tile(loop=j, n=2, max_innermost_factor=16, decision=[2, 8])\n"
           "j0, j1 = sch.split(loop=j, factors=vj)\n"
           "sch.reorder(i0, j0, i1, j1)\n"
           "c = sch.cache_write(b, 0, \"global\")\n"
           "sch.reverse_compute_at(c, %s)\n"
           "sch.annotate(root, \"meta_schedule.parallel\", %d)\n"
           "%s",
           at, jobs, post ? "sch.enter_postproc()\nsch.parallel(i0)\n" : "");
  tsl_diag d = {0};
  tsl_schedule *sch = NULL;
  if (tsl_schedule_new(p->ctx, p->mod, NULL, &sch, &d) ||
      tsl_script_run(sch, "sketch.sch", src, strlen(src), &d)) {
    tap_diag("sketch: %s", d.text);
    tsl_schedule_free(sch);
    return NULL;
  }
  return sch;
}

static int is_hex16(const char *s) {
  if (strlen(s) != 16)
    return 0;
  for (; *s; s++)
    if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
      return 0;
  return 1;
}

static void test_keys(void) {
  fx_prog p;
  fx_parse(test_matmul16, &p);
  tsl_schedule *a = sketch(&p, "j0", 16, 0), *a2 = sketch(&p, "j0", 16, 0),
               *b = sketch(&p, "i0", 16, 0), *ap = sketch(&p, "j0", 16, 1);
  ok(a && a2 && b && ap, "four schedules of two sketches");
  if (!a || !a2 || !b || !ap)
    return;
  const tsl_trace *ta = tsl_schedule_trace(a), *tb = tsl_schedule_trace(b);
  const char *ka = tsl_trace_key(ta), *kb = tsl_trace_key(tb);
  size_t n = tsl_key_decisions_len(ka);
  is_str(ka + n + 1, strrchr(ka, '@') + 1, "a key: decisions, '@', digest");
  ok(ka[n] == '@' && is_hex16(ka + n + 1), "  ... the digest is 16 hex digits (%s)", ka + n);
  ok(!strncmp(ka, "[[3,[4,4]],[5,[2,8]]]", n) && n == strlen("[[3,[4,4]],[5,[2,8]]]"),
     "  ... the decisions part is the JSON of the decisions (the key of tessel 0.2): %.*s",
     (int)n, ka);
  ok(tsl_trace_key(ta) == ka, "the key is computed once and kept with the trace");
  is_str(tsl_trace_key(tsl_schedule_trace(a2)), ka, "equal traces, equal keys");
  ok(tsl_key_decisions_len(kb) == n && !strncmp(ka, kb, n),
     "two sketches with the same decisions share the decisions part");
  ok(strcmp(ka, kb) != 0, "  ... but not the key (the cache-write block moved)");
  is_str(tsl_trace_key(tsl_schedule_trace(ap)), ka,
         "a postprocessed trace has the key of the trace before postprocessing");

  tsl_trace *c = tsl_trace_copy(ta);
  is_str(tsl_trace_key(c), ka, "a copy has the same key");
  uint32_t ann = 10; /* the annotate of meta_schedule.parallel */
  ok(!strcmp(tsl_trace_get(c, ann)->kind->name, "annotate"), "instruction 10 annotates");
  tsl_sch_value v32 = tsl_sv_int(32), v16 = tsl_sv_int(16);
  tsl_diag d = {0};
  tsl_trace_set_arg(c, ann, 2, &v32, &d);
  char *k32 = strdup(tsl_trace_key(c));
  ok(strcmp(k32, ka) != 0 && !strncmp(k32, ka, n),
     "a changed annotation (MutateParallel) changes the key, not its decisions part");
  tsl_trace_set_arg(c, ann, 2, &v16, &d);
  is_str(tsl_trace_key(c), ka, "  ... and changing it back gives the key back");
  tsl_sch_value items[2] = {tsl_sv_int(8), tsl_sv_int(2)};
  tsl_sch_value dec = tsl_sv_list(2, items);
  tsl_trace_set_decision(c, 3, &dec, &d);
  ok(!strncmp(tsl_trace_key(c), "[[3,[8,2]],[5,[2,8]]]@", 22),
     "a changed decision gives a new key: %s", tsl_trace_key(c));
  char *heap = tsl_trace_decisions_key(c);
  is_str(heap, tsl_trace_key(c), "tsl_trace_decisions_key is the same text, on the heap");
  free(heap);
  free(k32);
  tsl_trace_free(c);
  tsl_schedule_free(a);
  tsl_schedule_free(a2);
  tsl_schedule_free(b);
  tsl_schedule_free(ap);
  fx_free(&p);
}

/* ---- schema 1 databases ------------------------------------------------------- */

enum { N_REC = 3 };
static const int outers[N_REC] = {2, 4, 8};

/* A database with N_REC records of fx_vadd, made schema 1: keys cut to
 * their decisions part, a claim, user_version 1. */
static void make_v1(const char *path, int64_t *wid, char **keys) {
  fx_prog p;
  fx_parse(fx_vadd, &p);
  tsl_db *db = NULL;
  tsl_diag d = {0};
  tsl_db_open(path, TSL_DB_CREATE, &db, &d);
  tsl_db_workload(db, p.func, 64, wid, &d);
  for (int i = 0; i < N_REC; i++) {
    char *json = NULL;
    keys[i] = NULL;
    fx_trace(&p, outers[i], &json, &keys[i]);
    tsl_db_record r = fx_record(*wid, "llvm", json, keys[i], 0, 1e-3 * (i + 1), 100 + i);
    if (tsl_db_add(db, &r, &d))
      tap_diag("add: %s", d.text);
    free(json);
  }
  tsl_db_close(db);
  fx_free(&p);
  raw_exec(path, "UPDATE records SET decisions = substr(decisions, 1, instr(decisions, '@') - 1);"
                 "INSERT INTO claims VALUES (1, 'llvm', '[[2,[2,32]]]', 1, 0);"
                 "PRAGMA user_version = 1");
}

static int count_old_keys(const char *path) {
  return (int)raw_int(path, "SELECT count(*) FROM records WHERE instr(decisions, '@') = 0");
}

static void test_migration(void) {
  const char *path = tmp_path("v1.db");
  int64_t wid = 0;
  char *keys[N_REC];
  make_v1(path, &wid, keys);
  ok(count_old_keys(path) == N_REC && raw_int(path, "PRAGMA user_version") == 1,
     "a schema-1 database: %d records with keys of the decisions alone", N_REC);

  tsl_db *db = NULL;
  tsl_diag d = {0};
  is_int(tsl_db_open(path, TSL_DB_READONLY, &db, &d), 0, "a read-only open works");
  tsl_db_close(db);
  ok(count_old_keys(path) == N_REC && raw_int(path, "PRAGMA user_version") == 1,
     "  ... and changes nothing");

  char *exported = tmp_path("v1.jsonl");
  db = NULL;
  tsl_db_open(path, TSL_DB_READONLY, &db, &d);
  is_int(tsl_db_export(db, exported, &d), 0, "its records export (with the old keys)");
  tsl_db_close(db);

  db = NULL;
  is_int(tsl_db_open(path, TSL_DB_CREATE, &db, &d), 0, "opened for writing");
  ok(count_old_keys(path) == 0 && raw_int(path, "PRAGMA user_version") == 4,
     "  ... every key recomputed, schema version 4 (version 2's keys, 3's record counts, "
     "4's re-measurements)");
  int found = 0;
  for (int i = 0; i < N_REC; i++)
    found += tsl_db_has(db, wid, "llvm", keys[i], &d) == 1;
  is_int(found, N_REC, "  ... each record found under its trace's key");
  is_int((int)raw_int(path, "SELECT count(*) FROM claims"), 0, "  ... the old claims dropped");
  tsl_db_close(db);
  db = NULL;
  tsl_db_open(path, TSL_DB_CREATE, &db, &d);
  tsl_db_close(db);
  ok(count_old_keys(path) == 0 && raw_int(path, "PRAGMA user_version") == 4,
     "a second open leaves it as it is");

  const char *fresh = tmp_path("fresh.db");
  db = NULL;
  tsl_db_open(fresh, TSL_DB_CREATE, &db, &d);
  int64_t added = 0, skipped = 0;
  int rc = tsl_db_import(db, exported, &added, &skipped, &d);
  ok(rc == 0 && added == N_REC, "a file with old keys imports (%lld added): %s",
     (long long)added, rc ? d.text : "ok");
  found = 0;
  for (int i = 0; i < N_REC; i++)
    found += tsl_db_has(db, 1, "llvm", keys[i], &d) == 1;
  is_int(found, N_REC, "  ... under the new keys");
  tsl_db_close(db);
  ok(count_old_keys(fresh) == 0, "  ... no old key stored");

  /* a wrong old key is still refused */
  FILE *f = fopen(exported, "r");
  char line[8192];
  char *got = fgets(line, sizeof line, f);
  fclose(f);
  char *at = got ? strstr(line, "\"decisions\": \"[[2,[") : NULL;
  if (!at)
    at = got ? strstr(line, "\"decisions\":\"[[2,[") : NULL;
  ok(at != NULL, "the exported line holds its decisions");
  if (at) {
    char *digit = strchr(at, '[') + 5;
    *digit = *digit == '2' ? '4' : '2'; /* another outer factor */
    const char *bad = tmp_path("bad.jsonl");
    f = fopen(bad, "w");
    fputs(line, f);
    fclose(f);
    db = NULL;
    tsl_db_open(tmp_path("bad.db"), TSL_DB_CREATE, &db, &d);
    rc = tsl_db_import(db, bad, &added, &skipped, &d);
    ok(rc != 0 && strstr(d.text, "do not match the trace"),
       "an old key that is not the trace's is refused: %s", d.text);
    tsl_db_close(db);
  }
  for (int i = 0; i < N_REC; i++)
    free(keys[i]);
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/tessel_dbmig_XXXXXX");
  if (!mkdtemp(tmp))
    return 1;
  test_keys();
  test_migration();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd))
    tap_diag("could not remove %s", tmp);
  return tap_done();
}
