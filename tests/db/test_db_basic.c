/*
 * tests/db/test_db_basic.c — the tuning database through db.h: create and
 * reopen, workload dedup, add/has/count/each/best, stats, refusing foreign
 * or newer files untouched, read-only mode, export/import round trip,
 * rollback of a bad import and skipping duplicates.
 */
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db_fixture.h"
#include "tap.h"


static char *slurp(const char *path, size_t *n) {
  char *s = NULL;
  tsl_diag d = {0};
  if (tsl_read_file(path, &s, n, &d) != TSL_OK)
    return NULL;
  return s;
}

typedef struct flops_q {
  int64_t id;
  double flops;
} flops_q;

static int take_flops(void *ud, const tsl_db_workload_info *w) {
  flops_q *q = ud;
  if (w->id == q->id)
    q->flops = w->flops;
  return 0;
}

/* The FLOPs the database holds for workload `id` (-1: none). */
static double flops_of(tsl_db *db, int64_t id) {
  flops_q q = {id, -1};
  tsl_diag d = {0};
  tsl_db_each_workload(db, take_flops, &q, &d);
  return q.flops;
}

static void spit(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

typedef struct collect {
  int n;
  int64_t ids[64];
  double lat[64];
  char dec[64][64];
  uint32_t n_times[64];
  int stop_at;
} collect;

static int collect_fn(void *u, const tsl_db_record *r) {
  collect *c = u;
  if (c->n < 64) {
    c->ids[c->n] = r->id;
    c->lat[c->n] = r->latency_s;
    snprintf(c->dec[c->n], 64, "%s", r->decisions);
    c->n_times[c->n] = r->n_times;
  }
  c->n++;
  return c->stop_at && c->n == c->stop_at ? 42 : 0;
}

/* Records of `db` as one comparable text (ids excluded). */
static int dump_fn(void *u, const tsl_db_record *r) {
  tsl_strbuf *sb = u;
  tsl_strbuf_printf(sb, "%lld|%s|%s|%s|%d|%s|%.17g|%u|", (long long)r->workload_id,
                    r->target, r->trace_json, r->decisions, r->status, r->error,
                    r->latency_s, r->n_times);
  for (uint32_t i = 0; i < r->n_times; i++)
    tsl_strbuf_printf(sb, "%.17g,", r->times_s[i]);
  tsl_strbuf_printf(sb, "|%.17g|%s|%lld\n", r->build_s, r->version,
                    (long long)r->timestamp);
  return 0;
}

static char *dump(tsl_db *db) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  tsl_strbuf_append(&sb, "");
  tsl_diag d = {0};
  tsl_db_each(db, -1, NULL, dump_fn, &sb, &d);
  return tsl_strbuf_take(&sb);
}

int main(void) {
  strcpy(tmp, "/tmp/tessel_db_XXXXXX");
  if (!mkdtemp(tmp))
    return 1;
  tsl_diag d = {0};
  fx_prog pa, pb;
  if (fx_parse(fx_vadd, &pa) || fx_parse(fx_vmul, &pb))
    return 1;
  char *tj[4], *tk[4];
  int outers[4] = {2, 4, 8, 16};
  for (int i = 0; i < 4; i++)
    if (fx_trace(&pa, outers[i], &tj[i], &tk[i]))
      return 1;
  ok(strcmp(tk[0], tk[1]) != 0, "different decisions give different keys");

  /* ---- open / create / reopen ---- */
  const char *path = tmp_path("sub/dir/t.db");
  tsl_db *db = NULL;
  is_int(tsl_db_open(path, TSL_DB_READONLY, &db, &d), TSL_ENOTFOUND,
         "read-only open of a missing file fails");
  ok(strstr(d.text, path) != NULL, "  ... naming the path");
  is_int(tsl_db_open(path, TSL_DB_CREATE, &db, &d), TSL_OK, "create makes folders and file");
  struct stat sb;
  ok(stat(path, &sb) == 0, "  ... the file exists");
  is_str(tsl_db_path(db), path, "tsl_db_path");
  sqlite3 *raw;
  sqlite3_open(path, &raw);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, NULL);
  sqlite3_step(st);
  is_str((const char *)sqlite3_column_text(st, 0), "wal", "  ... in WAL mode");
  sqlite3_finalize(st);
  sqlite3_close(raw);

  /* ---- workloads ---- */
  int64_t wa = 0, wa2 = 0, wb = 0;
  is_int(tsl_db_workload(db, pa.func, 128, &wa, &d), TSL_OK, "workload added");
  is_int(tsl_db_workload(db, pa.func, 128, &wa2, &d), TSL_OK, "same workload again");
  is_int(wa2, wa, "  ... same id");
  fx_prog pa2;
  fx_parse(fx_vadd, &pa2);
  tsl_db_workload(db, pa2.func, 0, &wa2, &d);
  is_int(wa2, wa, "the same function parsed again (another context) has the same id");
  fx_free(&pa2);
  is_int(tsl_db_workload(db, pb.func, 64, &wb, &d), TSL_OK, "different workload");
  ok(wb != wa, "  ... gets a new id");
  /* a count that changed (an int8 workload stored before integer
   * operations counted) replaces the stored one; 0 (unknown) never does */
  tsl_db_workload(db, pa.func, 0, &wa2, &d);
  is_int(flops_of(db, wa), 128, "a lookup with 0 FLOPs keeps the stored count");
  tsl_db_workload(db, pa.func, 192, &wa2, &d);
  is_int(wa2, wa, "a lookup with another count finds the same workload");
  is_int(flops_of(db, wa), 192, "  ... and stores the new count");
  tsl_db_workload(db, pa.func, 128, &wa2, &d);

  /* ---- records ---- */
  is_int(tsl_db_has(db, wa, "llvm", tk[0], &d), 0, "has: not yet");
  tsl_db_record r0 = fx_record(wa, "llvm", tj[0], tk[0], TSL_RUN_OK, 2e-3, 1000);
  is_int(tsl_db_add(db, &r0, &d), TSL_OK, "add a record");
  ok(r0.id > 0, "  ... id set");
  is_int(tsl_db_has(db, wa, "llvm", tk[0], &d), 1, "has: now yes");
  is_int(tsl_db_has(db, wa, "llvm -threads=2", tk[0], &d), 0, "has: other target no");
  is_int(tsl_db_has(db, wb, "llvm", tk[0], &d), 0, "has: other workload no");
  tsl_db_record r1 = fx_record(wa, "llvm", tj[1], tk[1], TSL_RUN_OK, 1e-3, 1001);
  tsl_db_record r2 = fx_record(wa, "llvm", tj[2], tk[2], TSL_RUN_CRASH, -1, 1002);
  tsl_db_record r3 = fx_record(wa, "llvm", tj[3], tk[3], TSL_RUN_OK, 1e-3, 1003);
  tsl_db_record r4 = fx_record(wa, "other", tj[3], tk[3], TSL_RUN_OK, 5e-4, 1004);
  tsl_db_record r5 = fx_record(wb, "llvm", tj[3], tk[3], TSL_RUN_MISMATCH, 1e-5, 1005);
  /* stopped past the slow bound: its latency is a lower bound */
  tsl_db_record rst = fx_record(wb, "llvm", tj[2], tk[2], TSL_RUN_STOPPED, 1e-6, 1006);
  tsl_db_record *rs[] = {&r1, &r2, &r3, &r4, &r5, &rst};
  int all_ok = 1;
  for (int i = 0; i < 6; i++)
    all_ok &= tsl_db_add(db, rs[i], &d) == TSL_OK;
  ok(all_ok, "six more records");
  ok(r0.id < r1.id && r1.id < r2.id && r4.id < r5.id, "ids grow in insertion order");
  int64_t n = -1;
  tsl_db_count(db, wa, "llvm", &n, &d);
  is_int(n, 4, "count workload a on llvm (errors included)");
  tsl_db_count(db, wb, "llvm", &n, &d);
  is_int(n, 2, "count workload b");
  tsl_db_record bad = fx_record(wa + wb + 100, "llvm", tj[0], tk[0], 0, 1, 1);
  is_int(tsl_db_add(db, &bad, &d), TSL_ENOTFOUND, "a record of a missing workload is refused");
  bad = fx_record(wa, "", tj[0], tk[0], 0, 1, 1);
  is_int(tsl_db_add(db, &bad, &d), TSL_EINVALID, "a record without target is refused");
  bad = fx_record(wa, "llvm", tj[0], tk[0], 0, 1, 1);
  bad.n_times = TSL_DB_MAX_TIMES + 1;
  is_int(tsl_db_add(db, &bad, &d), TSL_EINVALID, "too many times are refused");

  collect c = {0};
  tsl_db_each(db, wa, "llvm", collect_fn, &c, &d);
  is_int(c.n, 4, "each: workload a on llvm");
  ok(c.ids[0] == r0.id && c.ids[3] == r3.id, "  ... in id order");
  is_int(c.n_times[0], 3, "  ... times read back");
  is_str(c.dec[1], tk[1], "  ... decisions read back");
  memset(&c, 0, sizeof c);
  tsl_db_each(db, -1, NULL, collect_fn, &c, &d);
  is_int(c.n, 7, "each: all");
  memset(&c, 0, sizeof c);
  c.stop_at = 2;
  is_int(tsl_db_each(db, -1, NULL, collect_fn, &c, &d), 42, "each: a nonzero return stops and is returned");
  is_int(c.n, 2, "  ... after two");

  memset(&c, 0, sizeof c);
  is_int(tsl_db_best(db, wa, "llvm", collect_fn, &c, &d), TSL_OK, "best of a on llvm");
  ok(c.n == 1 && c.ids[0] == r1.id, "  ... the older of two ties, never the error record");
  memset(&c, 0, sizeof c);
  tsl_db_best(db, wa, NULL, collect_fn, &c, &d);
  ok(c.n == 1 && c.ids[0] == r4.id, "best over any target");
  memset(&c, 0, sizeof c);
  is_int(tsl_db_best(db, wb, NULL, collect_fn, &c, &d), TSL_ENOTFOUND,
         "best of a workload with only a wrong-output and a stopped record: none");
  is_int(c.n, 0, "  ... fn not called");
  memset(&c, 0, sizeof c);
  is_int(tsl_db_top(db, wa, "llvm", 5, collect_fn, &c, &d), TSL_OK, "top 5 of a on llvm");
  ok(c.n == 3 && c.ids[0] == r1.id && c.ids[1] == r3.id && c.ids[2] == r0.id,
     "  ... the three OK records, fastest first, ties older first");
  memset(&c, 0, sizeof c);
  tsl_db_top(db, wa, "llvm", 2, collect_fn, &c, &d);
  ok(c.n == 2 && c.ids[1] == r3.id, "top 2: cut at k");
  memset(&c, 0, sizeof c);
  is_int(tsl_db_top(db, wb, NULL, 4, collect_fn, &c, &d), TSL_OK,
         "top of a workload without OK records: no error");
  is_int(c.n, 0, "  ... and no call");

  tsl_db_stats s;
  is_int(tsl_db_get_stats(db, &s, &d), TSL_OK, "stats");
  ok(s.records == 7 && s.workloads == 2 && s.errors == 2 && s.targets == 2,
     "  ... 7 records, 2 workloads, 2 errors (the stopped one is none), 2 targets");

  /* ---- export / import ---- */
  const char *jl = tmp_path("out.jsonl");
  is_int(tsl_db_export(db, jl, &d), TSL_OK, "export");
  char *before = dump(db);
  tsl_db_close(db);

  is_int(tsl_db_open(path, TSL_DB_CREATE, &db, &d), TSL_OK, "reopen");
  char *again = dump(db);
  is_str(again, before, "  ... the records are still there");
  free(again);
  tsl_db_close(db);

  tsl_db *db2;
  const char *p2 = tmp_path("copy.db");
  tsl_db_open(p2, TSL_DB_CREATE, &db2, &d);
  int64_t added = -1, skipped = -1;
  is_int(tsl_db_import(db2, jl, &added, &skipped, &d), TSL_OK, "import into a fresh db");
  ok(added == 7 && skipped == 0, "  ... 7 added, 0 skipped");
  char *after = dump(db2);
  is_str(after, before, "  ... the same records (workload ids too)");
  free(after);
  is_int(tsl_db_import(db2, jl, &added, &skipped, &d), TSL_OK, "import twice");
  ok(added == 0 && skipped == 7, "  ... everything skipped");
  int64_t wa3 = 0;
  tsl_db_workload(db2, pa.func, 0, &wa3, &d);
  tsl_db_count(db2, wa3, "llvm", &n, &d);
  is_int(n, 4, "the imported workload is found by tsl_db_workload");

  /* a malformed line after good ones: nothing added */
  size_t jn;
  char *text = slurp(jl, &jn);
  char *nl = strchr(text, '\n');
  tsl_strbuf bad_sb;
  tsl_strbuf_init(&bad_sb);
  tsl_strbuf_append(&bad_sb, text);
  /* a new record (other timestamp) then a broken line */
  char *first = strndup(text, (size_t)(nl - text));
  char *tsp = strstr(first, "\"timestamp\":");
  snprintf(tsp, 40, "\"timestamp\":9999}");
  tsl_strbuf_printf(&bad_sb, "%s\n{\"target\": \n", first);
  const char *badjl = tmp_path("bad.jsonl");
  spit(badjl, bad_sb.data);
  tsl_db_stats s0, s1;
  tsl_db_get_stats(db2, &s0, &d);
  int rc = tsl_db_import(db2, badjl, &added, &skipped, &d);
  is_int(rc, TSL_EPARSE, "a malformed line fails the import");
  char want[300];
  snprintf(want, sizeof want, "%s:9: error:", badjl);
  ok(strstr(d.text, want) != NULL, "  ... naming FILE:LINE");
  tap_diag("%s", d.text);
  tsl_db_get_stats(db2, &s1, &d);
  ok(s1.records == s0.records, "  ... and nothing was added (rollback)");
  snprintf(strchr(bad_sb.data + jn, '\n') + 1, 32, "\n");
  spit(badjl, bad_sb.data);
  is_int(tsl_db_import(db2, badjl, &added, &skipped, &d), TSL_OK, "without the broken line it imports");
  ok(added == 1 && skipped == 7, "  ... 1 added (new timestamp), 7 skipped");
  spit(badjl, "{\"workload\": {\"name\": \"x\", \"script\": \"not tvmscript\"}, \"target\": \"llvm\", "
              "\"trace\": {\"insts\": [], \"decisions\": []}, \"decisions\": \"[]\", \"status\": 0, "
              "\"latency_s\": 1, \"timestamp\": 5}\n");
  is_int(tsl_db_import(db2, badjl, &added, &skipped, &d), TSL_EPARSE, "a workload script that does not parse fails");
  ok(strstr(d.text, ":1: error: workload.script: not one prim_func") != NULL, "  ... on line 1");
  spit(badjl, "[1, 2]\n");
  is_int(tsl_db_import(db2, badjl, &added, &skipped, &d), TSL_EPARSE, "a line that is not an object fails");
  free(first);
  free(text);
  tsl_strbuf_free(&bad_sb);
  tsl_db_close(db2);

  /* ---- read-only ---- */
  is_int(tsl_db_open(path, TSL_DB_READONLY, &db, &d), TSL_OK, "read-only open");
  tsl_db_record r6 = fx_record(wa, "llvm", tj[0], tk[0], 0, 1, 5);
  is_int(tsl_db_add(db, &r6, &d), TSL_EINVALID, "read-only refuses add");
  ok(strstr(d.text, "read-only") != NULL, "  ... saying read-only");
  int64_t wid;
  is_int(tsl_db_workload(db, pa.func, 0, &wid, &d), TSL_OK, "read-only finds a known workload");
  fx_prog pc;
  fx_parse("@T.prim_func\ndef f(A: T.Buffer((8,), \"float32\")):\n    for i in range(8):\n"
           "        with T.block(\"B\"):\n            vi = T.axis.spatial(8, i)\n"
           "            A[vi] = T.float32(0)\n", &pc);
  is_int(tsl_db_workload(db, pc.func, 0, &wid, &d), TSL_ENOTFOUND, "read-only: a new workload is not found");
  fx_free(&pc);
  is_int(tsl_db_import(db, jl, &added, &skipped, &d), TSL_EINVALID, "read-only refuses import");
  char *ro = dump(db);
  is_str(ro, before, "  ... nothing changed");
  free(ro);
  tsl_db_close(db);
  free(before);

  /* ---- one workload when runs start together ---- */
  {
    const char *race = tmp_path("race.db");
    tsl_db *r0 = NULL;
    tsl_db_open(race, TSL_DB_CREATE, &r0, &d);
    tsl_db_close(r0);
    int gate[2];
    if (pipe(gate) == 0) {
      pid_t kids[6];
      for (int k = 0; k < 6; k++)
        if ((kids[k] = fork()) == 0) {
          char c;
          close(gate[1]);
          if (read(gate[0], &c, 1) < 0) /* all start when the gate opens */
            _exit(3);
          tsl_db *h = NULL;
          tsl_diag cd = {0};
          int64_t w = 0;
          int bad = tsl_db_open(race, TSL_DB_CREATE, &h, &cd) ||
                    tsl_db_workload(h, pa.func, 128, &w, &cd);
          tsl_db_close(h);
          _exit(bad ? 1 : 0);
        }
      close(gate[0]);
      close(gate[1]); /* EOF: every child reads at once */
      int all = 1;
      for (int k = 0; k < 6; k++) {
        int st = 0;
        waitpid(kids[k], &st, 0);
        all &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
      }
      ok(all, "six processes add the same workload at once");
      sqlite3 *rr;
      sqlite3_open(race, &rr);
      sqlite3_stmt *cs;
      sqlite3_prepare_v2(rr, "SELECT count(*) FROM workloads", -1, &cs, NULL);
      sqlite3_step(cs);
      is_int(sqlite3_column_int(cs, 0), 1, "  ... one workload row (lookup and insert in one transaction)");
      sqlite3_finalize(cs);
      sqlite3_close(rr);
    }
  }

  /* ---- foreign and newer files ---- */
  const char *junk = tmp_path("junk.db");
  char junk_text[4096];
  for (size_t i = 0; i < sizeof junk_text - 1; i++)
    junk_text[i] = (char)('a' + i % 26);
  junk_text[sizeof junk_text - 1] = 0;
  spit(junk, junk_text);
  is_int(tsl_db_open(junk, TSL_DB_CREATE, &db, &d), TSL_EINVALID, "a non-SQLite file is refused");
  ok(strstr(d.text, "not a tessel database") && strstr(d.text, junk), "  ... saying so, with the path");
  tap_diag("%s", d.text);
  size_t jlen;
  char *jback = slurp(junk, &jlen);
  ok(jback && jlen == strlen(junk_text) && !memcmp(jback, junk_text, jlen), "  ... left byte-identical");
  free(jback);
  ok(access(tmp_path("junk.db-wal"), F_OK) != 0, "  ... no WAL file left behind");

  const char *other = tmp_path("other.db");
  sqlite3_open(other, &raw);
  sqlite3_exec(raw, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", NULL, NULL, NULL);
  sqlite3_close(raw);
  size_t olen;
  char *obefore = slurp(other, &olen);
  is_int(tsl_db_open(other, TSL_DB_CREATE, &db, &d), TSL_EINVALID, "an SQLite file of another program is refused");
  ok(strstr(d.text, "without the tessel schema") != NULL, "  ... saying it has no tessel schema");
  size_t olen2;
  char *oafter = slurp(other, &olen2);
  ok(olen == olen2 && !memcmp(obefore, oafter, olen), "  ... left byte-identical");
  free(obefore);
  free(oafter);

  sqlite3_open(p2, &raw);
  sqlite3_exec(raw, "PRAGMA user_version = 7", NULL, NULL, NULL);
  sqlite3_close(raw);
  is_int(tsl_db_open(p2, TSL_DB_READONLY, &db, &d), TSL_EUNSUPPORTED, "a newer schema is refused");
  ok(strstr(d.text, "version 7") && strstr(d.text, "version 4"), "  ... naming both versions");
  tap_diag("%s", d.text);

  const char *empty = tmp_path("empty.db");
  spit(empty, "");
  is_int(tsl_db_open(empty, TSL_DB_READONLY, &db, &d), TSL_EINVALID, "read-only open of an empty file fails");
  is_int(tsl_db_open(empty, TSL_DB_CREATE, &db, &d), TSL_OK, "an empty file becomes a database");
  tsl_db_close(db);
  is_int(tsl_db_open(tmp, TSL_DB_CREATE, &db, &d), TSL_EINVALID, "a folder is refused");

  for (int i = 0; i < 4; i++) {
    free(tj[i]);
    free(tk[i]);
  }
  fx_free(&pa);
  fx_free(&pb);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0)
    return 1;
  return tap_done();
}
