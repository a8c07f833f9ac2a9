/*
 * tests/report: `tessel report` end to end. Usage errors and a missing or
 * non-database DB exit 2 with a message naming the path; then (when the
 * database is available) a database built with db.h, two workloads, two
 * targets, errors and a user name needing escaping, is reported: the page
 * is checked with check_report.py (well-formed, counts of marks per
 * series, best value) and --workload / --title / -o - are exercised.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "tessel/tessel.h"

static char tmp[] = "/tmp/tessel_report_cli_XXXXXX";
static const char *exe;
static char err[8192];

/* Runs `tessel report ARGS` with stdout to OUT (NULL: /dev/null); returns
 * the exit status; stderr lands in `err`. */
static int run(const char *args, const char *out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' report %s >'%s' 2>'%s/err'", exe, args,
           out ? out : "/dev/null", tmp);
  int st = system(cmd);
  char path[600];
  snprintf(path, sizeof path, "%s/err", tmp);
  err[0] = 0;
  FILE *f = fopen(path, "r");
  if (f) {
    size_t n = fread(err, 1, sizeof err - 1, f);
    err[n] = 0;
    fclose(f);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *name) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s", tmp, name);
  return access(p, F_OK) == 0;
}

/* check_report.py output for a page (one line per section) in `buf`;
 * returns the exit status of the checker, -1 when it cannot run. */
static int check(const char *page, char *buf, size_t n) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "PYTHONIOENCODING=utf-8 python3 '%s/tests/report/check_report.py' '%s' 2>&1",
           getenv("TESSEL_SOURCE_ROOT"), page);
  FILE *p = popen(cmd, "r");
  if (!p)
    return -1;
  size_t len = fread(buf, 1, n - 1, p);
  buf[len] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int add(tsl_db *db, int64_t wl, const char *target, const char *key, int32_t status,
               double lat, const char *error) {
  tsl_db_record r;
  memset(&r, 0, sizeof r);
  r.struct_size = sizeof r;
  r.workload_id = wl;
  r.target = target;
  r.trace_json = "[]";
  r.decisions = key;
  r.status = status;
  r.error = error;
  r.latency_s = lat;
  r.n_times = lat > 0 ? 1 : 0;
  r.times_s[0] = lat;
  r.build_s = 0.1;
  r.version = "test";
  r.timestamp = 1700000000;
  tsl_diag d = {0};
  int rc = tsl_db_add(db, &r, &d);
  if (rc != TSL_OK)
    tap_diag("tsl_db_add: %s", d.text);
  return rc;
}

static const char *evil_src =
    "@T.prim_func\n"
    "def f_lt_gt(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
    "    for i in range(4):\n"
    "        with T.block(\"B\"):\n"
    "            vi = T.axis.spatial(4, i)\n"
    "            B[vi] = A[vi] + T.float32(1)\n";

int main(void) {
  exe = getenv("TESSEL_EXE");
  const char *src = getenv("TESSEL_SOURCE_ROOT");
  if (!exe || !src || !mkdtemp(tmp)) {
    ok(0, "TESSEL_EXE, TESSEL_SOURCE_ROOT and a temporary folder");
    return tap_done();
  }
  char args[2048], page[600], buf[8192];
  tsl_ctx *ctx = NULL;
  tsl_arena *ar = NULL;
  snprintf(page, sizeof page, "%s/r.html", tmp);

  /* usage errors */
  snprintf(args, sizeof args, "'%s/missing.db' -o '%s'", tmp, page);
  is_int(run(args, NULL), 2, "a missing database exits 2");
  ok(strstr(err, "tessel report: error: ") && strstr(err, "missing.db") &&
         strstr(err, "No such file"),
     "  ... naming the path and the reason");
  if (!strstr(err, "missing.db"))
    tap_diag("stderr: %s", err);
  ok(!exists("r.html") && !exists("r.html.tmp"), "  ... and writes nothing");
  is_int(run("", NULL), 2, "no database exits 2");
  ok(strstr(err, "no database given") != NULL, "  ... saying so");
  snprintf(args, sizeof args, "'%s' -o '%s'", tmp, page);
  is_int(run(args, NULL), 2, "a folder as database exits 2");
  ok(strstr(err, "not a database file") != NULL, "  ... saying so");
  snprintf(args, sizeof args, "'%s/x.db'", tmp);
  is_int(run(args, NULL), 2, "no -o exits 2");
  ok(strstr(err, "no output file") != NULL, "  ... saying so");
  is_int(run("x.db -o a.html --bogus", NULL), 2, "an unknown option exits 2");
  ok(strstr(err, "'--bogus'") && strstr(err, "--workload"), "  ... naming it and the valid ones");
  is_int(run("x.db -o a.html --workload -3", NULL), 2, "a negative workload id exits 2");
  is_int(run("x.db -o a.html --workload", NULL), 2, "an option without value exits 2");
  ok(strstr(err, "needs a value") != NULL, "  ... saying so");
  is_int(run("--help", NULL), 0, "--help exits 0");

  /* a text file that is not a database */
  char notdb[600];
  snprintf(notdb, sizeof notdb, "%s/notdb.db", tmp);
  FILE *f = fopen(notdb, "w");
  fputs("this is not a database, just some text that is long enough to matter\n", f);
  fclose(f);
  snprintf(args, sizeof args, "'%s' -o '%s'", notdb, page);
  is_int(run(args, NULL), 2, "a text file as database exits 2");
  ok(strstr(err, "notdb.db") != NULL, "  ... naming it");
  tap_diag("stderr: %s", err);
  ok(!exists("r.html"), "  ... and writes no page");

  /* a real database */
  char dbp[600];
  snprintf(dbp, sizeof dbp, "%s/t.db", tmp);
  tsl_diag d = {0};
  tsl_db *db = NULL;
  int rc = tsl_db_open(dbp, TSL_DB_CREATE, &db, &d);
  if (rc == TSL_EUNSUPPORTED) {
    tap_skip("the database is not available in this build", "end-to-end report");
    goto done;
  }
  if (!ok(rc == TSL_OK, "tsl_db_open CREATE")) {
    tap_diag("%s", d.text);
    goto done;
  }
  ctx = tsl_ctx_new();
  ar = tsl_arena_new(ctx);
  const tsl_module *m1 = NULL, *m2 = NULL;
  char wpath[600];
  snprintf(wpath, sizeof wpath, "%s/workloads/matmul_128.py", src);
  rc = tsl_parse_file(ar, wpath, &m1, &d);
  if (rc == TSL_OK)
    rc = tsl_parse(ar, "evil.py", evil_src, strlen(evil_src), &m2, &d);
  if (!ok(rc == TSL_OK, "parse the workloads")) {
    tap_diag("%s", d.text);
    goto close;
  }
  int64_t w1 = -1, w2 = -1;
  rc = tsl_db_workload(db, m1->funcs[0], tsl_func_flops(m1->funcs[0]), &w1, &d);
  if (rc == TSL_OK)
    rc = tsl_db_workload(db, m2->funcs[0], 0, &w2, &d);
  if (!ok(rc == TSL_OK && w1 != w2, "two workloads")) {
    tap_diag("%s", d.text);
    goto close;
  }
  /* workload 1 on target A: 20 records, every 5th a failure; on target B: 3 */
  const double flops = tsl_func_flops(m1->funcs[0]);
  double best = 0;
  int good = 0;
  char key[32];
  for (int i = 0; i < 20 && rc == TSL_OK; i++) {
    snprintf(key, sizeof key, "k%d", i);
    if (i % 5 == 2) {
      rc = add(db, w1, "llvm -threads=1", key, i % 2 ? TSL_RUN_CRASH : TSL_RUN_TIMEOUT, -1,
               "worker died <signal 11> & more");
    } else {
      double lat = 1e-3 / (1 + (i * 7) % 11);
      best = fmax(best, flops / lat / 1e9);
      good++;
      rc = add(db, w1, "llvm -threads=1", key, TSL_RUN_OK, lat, NULL);
    }
  }
  for (int i = 0; i < 3 && rc == TSL_OK; i++) {
    snprintf(key, sizeof key, "b%d", i);
    rc = add(db, w1, "llvm -threads=2", key, TSL_RUN_OK, 2e-3, NULL);
  }
  if (rc == TSL_OK)
    rc = add(db, w2, "llvm -threads=1", "e0", TSL_RUN_BUILD_ERROR, -1, "bad <code>");
  if (!ok(rc == TSL_OK, "records added")) {
    goto close;
  }
  tsl_db_close(db);
  db = NULL;

  snprintf(args, sizeof args, "'%s' -o '%s' --title 'Run <1> & co'", dbp, page);
  is_int(run(args, NULL), 0, "report exits 0");
  ok(strstr(err, "wrote ") != NULL, "  ... saying what it wrote on stderr");
  ok(exists("r.html") && !exists("r.html.tmp"), "  ... the page exists, no temporary left");
  if (system("python3 -c 'import xml.etree.ElementTree' >/dev/null 2>&1") != 0) {
    tap_skip("python3 not found", "page checks");
    goto done;
  }
  is_int(check(page, buf, sizeof buf), 0, "the page is well-formed with finite coordinates");
  tap_diag("%s", buf);
  char want[256];
  snprintf(want, sizeof want, "pts=%d errs=%d best_rows=10 err_rows=2 curve=1 best=", good,
           20 - good);
  ok(strstr(buf, want) != NULL, "series 1: %d points, %d error marks, 2 error kinds", good,
     20 - good);
  char *b = strstr(buf, want);
  ok(b && fabs(strtod(b + strlen(want), NULL) - best) <= 1e-3 * best, "series 1: best GFLOPS %.4g",
     best);
  ok(strstr(buf, "pts=3 errs=0 best_rows=3 err_rows=0 curve=1") != NULL, "series 2: 3 points");
  ok(strstr(buf, "pts=0 errs=1 best_rows=0 err_rows=1 curve=0 best=- h2=f_lt_gt") != NULL,
     "series 3: only an error");
  char *html = NULL;
  size_t len = 0;
  if (tsl_read_file(page, &html, &len, &d) == TSL_OK) {
    ok(strstr(html, "<title>Run &lt;1&gt; &amp; co</title>") != NULL, "the title is escaped");
    ok(strstr(html, "worker died &lt;signal 11&gt; &amp; more") != NULL, "error texts are escaped");
    ok(strstr(html, "<th>records</th><td>24</td>") && strstr(html, "<th>workloads</th><td>2</td>") &&
           strstr(html, "<th>errors</th><td>5</td>") && strstr(html, "<th>targets</th><td>2</td>"),
       "the header has the database counts");
    free(html);
  }

  /* --workload and -o - */
  snprintf(args, sizeof args, "'%s' -o - --workload %lld", dbp, (long long)w2);
  is_int(run(args, page), 0, "--workload with -o - exits 0");
  is_int(check(page, buf, sizeof buf), 0, "  ... a well-formed page on stdout");
  ok(strstr(buf, "h2=f_lt_gt") && !strstr(buf, "matmul"), "  ... with only that workload");
  snprintf(args, sizeof args, "'%s' -o '%s' --workload 999", dbp, page);
  is_int(run(args, NULL), 2, "an unknown workload exits 2");
  ok(strstr(err, "no workload with id 999") && strstr(err, "f_lt_gt"),
     "  ... naming the valid workloads");
  snprintf(args, sizeof args, "'%s' -o '%s/nowhere/r.html'", dbp, tmp);
  is_int(run(args, NULL), 2, "an unwritable output exits 2");
  ok(strstr(err, "nowhere/r.html") != NULL, "  ... naming it");
  goto done;

close:
  tsl_db_close(db);
done:
  tsl_arena_free(ar);
  tsl_ctx_free(ctx);
  snprintf(args, sizeof args, "rm -rf '%s'", tmp);
  if (system(args) != 0)
    tap_diag("could not remove %s", tmp);
  return tap_done();
}
