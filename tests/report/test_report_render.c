/*
 * tests/report: the HTML renderer of `tessel report` (core/cli/
 * report_render.c, compiled into this test) on synthetic data: many
 * points, one point, only errors, equal values, no series, no points,
 * unknown FLOP count and names that need escaping. Each page is checked
 * here (counts of marks, best value, no nan/inf in attributes) and by
 * check_report.py (well-formed XML, finite coordinates inside the charts,
 * a rising step curve) when python3 is available.
 */
#include "report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tap.h"

static char tmpdir[] = "/tmp/tessel_report_XXXXXX";
static int have_python;

typedef struct section {
  int pts, errs, best_rows, err_rows, curve;
  char best[64], h2[512];
} section;

static char *render_to_file(const report_data *d, const char *name, char *path, size_t n) {
  snprintf(path, n, "%s/%s.html", tmpdir, name);
  FILE *f = fopen(path, "w");
  if (!f)
    return NULL;
  int rc = report_render(f, d);
  fclose(f);
  if (rc != 0)
    return NULL;
  char *text = NULL;
  size_t len = 0;
  tsl_diag diag = {0};
  if (tsl_read_file(path, &text, &len, &diag) != TSL_OK)
    return NULL;
  return text;
}

static size_t count(const char *hay, const char *needle) {
  size_t c = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
    c++;
  return c;
}

/* 1 when some attribute value (="...") holds "nan" or "inf". */
static int attr_has_nonfinite(const char *html) {
  for (const char *p = html; (p = strstr(p, "=\"")); ) {
    p += 2;
    const char *e = strchr(p, '"');
    if (!e)
      return 1;
    for (const char *q = p; q + 3 <= e; q++)
      if (!strncasecmp(q, "nan", 3) || !strncasecmp(q, "inf", 3))
        return 1;
    p = e + 1;
  }
  return 0;
}

/* Runs check_report.py; returns the number of sections read, -1 when the
 * checker rejected the page (its message goes to the TAP log). */
static int python_check(const char *path, section *secs, int max) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "PYTHONIOENCODING=utf-8 python3 '%s/tests/report/check_report.py' '%s' 2>&1",
           getenv("TESSEL_SOURCE_ROOT"), path);
  FILE *p = popen(cmd, "r");
  if (!p)
    return -1;
  char line[2048];
  int n = 0, bad = 0;
  while (fgets(line, sizeof line, p)) {
    section s = {0};
    char *h2 = strstr(line, " h2=");
    if (n < max && h2 &&
        sscanf(line, "pts=%d errs=%d best_rows=%d err_rows=%d curve=%d best=%63s", &s.pts,
               &s.errs, &s.best_rows, &s.err_rows, &s.curve, s.best) == 6) {
      snprintf(s.h2, sizeof s.h2, "%s", h2 + 4);
      s.h2[strcspn(s.h2, "\n")] = 0;
      secs[n++] = s;
    } else {
      tap_diag("%s", line);
      bad = 1;
    }
  }
  int st = pclose(p);
  return st != 0 || bad ? -1 : n;
}

static uint64_t rng = 88172645463325252ull;
static double urand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

/* The page-level checks shared by every case. */
static void check_page(const char *name, const report_data *d, section *secs, int *n_secs) {
  char path[512];
  char *html = render_to_file(d, name, path, sizeof path);
  ok(html != NULL, "%s: rendered", name);
  if (!html) {
    *n_secs = -1;
    return;
  }
  ok(!attr_has_nonfinite(html), "%s: no nan/inf in any attribute", name);
  ok(strstr(html, "<script") == NULL && strstr(html, "http://") == strstr(html, "http://www.w3.org/2000/svg"),
     "%s: no script and no external reference", name);
  is_int(count(html, "<section "), d->n_series, "%s: one section per series", name);
  if (have_python) {
    *n_secs = python_check(path, secs, 8);
    ok(*n_secs == (int)d->n_series, "%s: well-formed, finite coordinates inside the chart, rising step curve", name);
  } else {
    tap_skip("python3 not found", "well-formed page");
    *n_secs = -1;
  }
  free(html);
}

static void check_best(const section *s, double want, const char *what) {
  double got = strtod(s->best, NULL);
  if (!ok(fabs(got - want) <= 1e-3 * want, "%s: best value label", what))
    tap_diag("  got %s, want %.6g", s->best, want);
}

int main(void) {
  if (!mkdtemp(tmpdir)) {
    ok(0, "mkdtemp");
    return tap_done();
  }
  have_python = system("python3 -c 'import xml.etree.ElementTree' >/dev/null 2>&1") == 0;
  section secs[8];
  int ns;

  /* 1. many points: 300 records, a fifth of them failures of 3 kinds */
  enum { MANY = 300 };
  static report_point many[MANY];
  static char errtext[MANY][64];
  const double flops = 2.0 * 128 * 128 * 128;
  size_t good = 0;
  double best = 0;
  int32_t kinds[] = {TSL_RUN_CRASH, TSL_RUN_TIMEOUT, TSL_RUN_BUILD_ERROR};
  for (size_t i = 0; i < MANY; i++) {
    many[i].record_id = (int64_t)(1000 + 2 * i);
    if (urand() < 0.2) {
      many[i].status = kinds[i % 3];
      many[i].latency_s = -1;
      snprintf(errtext[i], sizeof errtext[i], "failure number %zu", i);
      many[i].error = errtext[i];
    } else {
      many[i].status = TSL_RUN_OK;
      many[i].latency_s = 1e-4 * (0.5 + 4 * urand());
      double g = flops / many[i].latency_s / 1e9;
      best = g > best ? g : best;
      good++;
    }
  }
  report_series s_many = {7, "matmul", "llvm -threads=1", flops, many, MANY, 0, 0, 0, 0, 0};
  report_data d = {"many", "/tmp/x.db", MANY, 1, (int64_t)(MANY - good), 1, NULL, &s_many, 1};
  check_page("many", &d, secs, &ns);
  if (ns == 1) {
    is_int(secs[0].pts, good, "many: one scatter point per ok record");
    is_int(secs[0].errs, MANY - good, "many: one x-axis mark per failed record");
    is_int(secs[0].best_rows, 10, "many: the best table has 10 rows");
    is_int(secs[0].err_rows, 3, "many: three error statuses");
    is_int(secs[0].curve, 1, "many: one tuning curve");
    check_best(&secs[0], best, "many");
  }

  /* 2. one point */
  report_point one = {42, TSL_RUN_OK, 2e-3, NULL};
  report_series s_one = {1, "f", "llvm", 1e6, &one, 1, 0, 0, 0, 0, 0};
  d = (report_data){NULL, "one.db", 1, 1, 0, 1, NULL, &s_one, 1};
  check_page("one", &d, secs, &ns);
  if (ns == 1) {
    is_int(secs[0].pts, 1, "one: one scatter point");
    is_int(secs[0].errs, 0, "one: no error mark");
    is_int(secs[0].best_rows, 1, "one: one best row");
    is_int(secs[0].curve, 1, "one: a curve");
    check_best(&secs[0], 1e6 / 2e-3 / 1e9, "one");
  }

  /* 2b. the re-measured best (runner.remeasure) shown beside the in-run best */
  {
    report_series s_rm = {1, "f", "llvm", 1e6, &one, 1, 42, 2.5e-3, 2.4e-3, 2.7e-3, 3};
    report_data dr = {NULL, "rm.db", 1, 1, 0, 1, NULL, &s_rm, 1};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = f ? report_render(f, &dr) : -1;
    if (f)
      fclose(f);
    ok(rc == 0 && buf && strstr(buf, "median of 3 rounds in a fresh worker") &&
           strstr(buf, "<span class=\"remeasured-value\">2.5 ms</span>") &&
           strstr(buf, "(2.4 ms to 2.7 ms), record 42."),
       "the re-measured best: its median, spread, rounds and record");
    free(buf);
  }

  /* 3. only errors, and an OK record without a usable time */
  report_point errs[] = {{1, TSL_RUN_CRASH, -1, "signal 11"},
                         {2, TSL_RUN_TIMEOUT, -1, "killed after 10 s"},
                         {3, TSL_RUN_CRASH, NAN, "signal 6"},
                         {4, TSL_RUN_OK, INFINITY, NULL},
                         {5, 99, 0, "from the future"}};
  report_series s_err = {2, "g", "llvm", 1e9, errs, 5, 0, 0, 0, 0, 0};
  d = (report_data){"errors", "e.db", 5, 1, 5, 1, NULL, &s_err, 1};
  check_page("errors", &d, secs, &ns);
  if (ns == 1) {
    is_int(secs[0].pts, 0, "errors: no scatter point");
    is_int(secs[0].errs, 5, "errors: five marks");
    is_int(secs[0].curve, 0, "errors: no curve");
    is_int(secs[0].best_rows, 0, "errors: no best table");
    is_int(secs[0].err_rows, 4, "errors: crash, timeout, untimed ok, unknown status");
    is_str(secs[0].best, "-", "errors: no best value");
  }

  /* 4. equal values, and no FLOP count (calls per second) */
  report_point eq[6];
  for (int i = 0; i < 6; i++)
    eq[i] = (report_point){i + 1, TSL_RUN_OK, 0.25, NULL};
  report_series s_eq = {3, "h", "llvm", 0, eq, 6, 0, 0, 0, 0, 0};
  d = (report_data){NULL, "eq.db", 6, 1, 0, 1, NULL, &s_eq, 1};
  check_page("equal", &d, secs, &ns);
  if (ns == 1) {
    is_int(secs[0].pts, 6, "equal: six points");
    is_int(secs[0].best_rows, 6, "equal: six best rows");
    check_best(&secs[0], 4.0, "equal (calls/s)");
  }

  /* 5. no series; a series with no point */
  d = (report_data){NULL, "empty.db", 0, 0, 0, 0, NULL, NULL, 0};
  check_page("empty", &d, secs, &ns);
  report_series s_none = {4, "k", "llvm", 1e6, NULL, 0, 0, 0, 0, 0, 0};
  d = (report_data){NULL, "none.db", 0, 1, 0, 0, NULL, &s_none, 1};
  check_page("nopoints", &d, secs, &ns);
  if (ns == 1)
    is_int(secs[0].pts + secs[0].errs + secs[0].curve, 0, "nopoints: nothing drawn");

  /* 6. user text that needs escaping, over two series */
  const char *evil = "<script>alert(\"x&y\")</script> ]]> 'q' \x01\xff end";
  report_point ep = {9, TSL_RUN_MISMATCH, -1, "max |a-b| = 3 > 1e-3 <b>&amp;</b>"};
  report_point gp = {10, TSL_RUN_OK, 1e-3, NULL};
  report_series two[] = {{5, evil, "llvm -mcpu=\"x\" & <y>", 1e6, &ep, 1, 0, 0, 0, 0, 0},
                         {5, evil, "llvm", 1e6, &gp, 1, 0, 0, 0, 0, 0}};
  d = (report_data){"T & <title>", "/tmp/a&b<c>.db", 2, 1, 1, 2, "workload 5 only", two, 2};
  check_page("escape", &d, secs, &ns);
  if (ns == 2) {
    ok(strncmp(secs[0].h2, "<script>alert(\"x&y\")</script> ]]> 'q' \xEF\xBF\xBD\xEF\xBF\xBD end",
               strlen("<script>alert(\"x&y\")</script> ]]> 'q' \xEF\xBF\xBD\xEF\xBF\xBD end")) == 0,
       "escape: the workload name reads back intact (control and invalid bytes as U+FFFD)");
    tap_diag("h2: %s", secs[0].h2);
    is_int(secs[1].pts, 1, "escape: second series has its point");
  }
  char path[512];
  char *html = render_to_file(&d, "escape2", path, sizeof path);
  ok(html && !strstr(html, "<b>&amp;") && strstr(html, "&lt;b&gt;&amp;amp;&lt;/b&gt;"),
     "escape: error text is escaped");
  ok(html && strstr(html, "<title>T &amp; &lt;title&gt;</title>"), "escape: the title is escaped");
  free(html);

  /* 7. a long error text is cut */
  static char longerr[5000];
  memset(longerr, 'e', sizeof longerr - 1);
  report_point lp = {1, TSL_RUN_BUILD_ERROR, -1, longerr};
  report_series s_long = {6, "l", "llvm", 1e6, &lp, 1, 0, 0, 0, 0, 0};
  d = (report_data){NULL, "l.db", 1, 1, 1, 1, NULL, &s_long, 1};
  html = render_to_file(&d, "long", path, sizeof path);
  ok(html && strlen(html) < 12000 && strstr(html, "&#8230;"), "long error text is cut with an ellipsis");
  free(html);

  /* 8. a write error is reported */
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    setvbuf(full, NULL, _IONBF, 0);
    d = (report_data){NULL, "x.db", 1, 1, 0, 1, NULL, &s_one, 1};
    ok(report_render(full, &d) != 0, "writing to /dev/full fails");
    fclose(full);
  } else {
    tap_skip("no /dev/full", "write error");
  }

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", tmpdir);
  return tap_done();
}
