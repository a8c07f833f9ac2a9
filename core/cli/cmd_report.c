/*
 * `tessel report DB -o OUT.html [--workload ID] [--title T]`: one
 * self-contained HTML page (inline CSS and SVG) with the tuning curve and
 * every measurement of each workload and target of a tuning database.
 * Loading is report_load.c, drawing report_render.c. The page is written
 * to OUT.tmp then renamed, so OUT is never left half written.
 */
#include "cli.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cli_report_usage[] =
    "usage: tessel report DB -o OUT.html [--workload ID] [--title TEXT]\n"
    "\n"
    "Write one self-contained HTML page (no external files: inline CSS and SVG)\n"
    "about the tuning database DB: its counts, then for each workload and target\n"
    "the tuning curve (best GFLOPS so far against trial number, trials in record\n"
    "order) over a scatter of every measurement, failed records marked on the x\n"
    "axis, a table of the 10 best records and a table of errors by status.\n"
    "\n"
    "  -o, --output OUT  the HTML file to write ('-': standard output)\n"
    "  --workload ID     only this workload (ids: tessel db stats DB --json)\n"
    "  --title TEXT      the page title (default: \"tessel tuning report\")\n"
    "\n"
    "exit status: 0 written, 2 on a usage error, an unreadable database or an\n"
    "unwritable OUT\n";

typedef struct report_args {
  const char *db, *out, *title;
  long long workload;
} report_args;

static int parse_args(int argc, char **argv, report_args *a) {
  memset(a, 0, sizeof *a);
  a->workload = -1;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (o[0] != '-' || !o[1]) {
      if (a->db)
        return cli_error("report", "more than one DB given ('%s' and '%s')\nnote: see "
                                   "tessel report --help", a->db, o);
      a->db = o;
      continue;
    }
    int is_out = !strcmp(o, "-o") || !strcmp(o, "--output");
    if (!is_out && strcmp(o, "--workload") && strcmp(o, "--title"))
      return cli_error("report", "unknown option '%s'\nnote: valid options: -o/--output, "
                                 "--workload, --title, --help", o);
    if (i + 1 >= argc)
      return cli_error("report", "option %s needs a value\nnote: see tessel report --help", o);
    const char *v = argv[++i];
    if (is_out) {
      a->out = v;
    } else if (!strcmp(o, "--title")) {
      a->title = v;
    } else {
      char *end;
      errno = 0;
      long long id = strtoll(v, &end, 10);
      if (!*v || *end || errno || id < 0)
        return cli_error("report", "--workload expects a workload id (an integer >= 0), "
                                   "got '%s'", v);
      a->workload = id;
    }
  }
  if (!a->db)
    return cli_error("report", "no database given\n%s", cli_report_usage);
  if (!a->out)
    return cli_error("report", "no output file given (-o OUT.html; '-' for standard "
                               "output)");
  return -1;
}

static int write_page(const report_args *a, const report_data *d) {
  if (!strcmp(a->out, "-")) {
    if (report_render(stdout, d) != 0 || fflush(stdout) != 0)
      return cli_error("report", "could not write the page to standard output");
    return CLI_OK;
  }
  size_t n = strlen(a->out) + 5;
  char *tmp = malloc(n);
  if (!tmp)
    return cli_error("report", "out of memory");
  snprintf(tmp, n, "%s.tmp", a->out);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    int e = errno;
    free(tmp);
    return cli_error("report", "%s: cannot write: %s", a->out, strerror(e));
  }
  int bad = report_render(f, d) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, a->out) != 0) {
    int e = errno;
    remove(tmp);
    free(tmp);
    return cli_error("report", "%s: cannot write: %s", a->out, strerror(e));
  }
  free(tmp);
  return CLI_OK;
}

int cli_report(int argc, char **argv) {
  int h = cli_help_requested(argc, argv, cli_report_usage);
  if (h >= 0)
    return h;
  report_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0)
    return rc;
  struct stat st;
  if (stat(a.db, &st) != 0)
    return cli_error("report", "%s: cannot open the database: %s", a.db, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return cli_error("report", "%s: not a database file (a tessel database is one SQLite "
                               "file, as written by tessel tune)", a.db);
  report_loaded r;
  tsl_diag diag = {.struct_size = sizeof diag};
  if (report_load(a.db, a.workload, &r, &diag) != TSL_OK)
    return cli_error("report", "%s", diag.text);
  r.data.title = a.title;
  rc = write_page(&a, &r.data);
  if (rc == CLI_OK && strcmp(a.out, "-"))
    fprintf(stderr, "wrote %s (%zu workload/target series, %lld records)\n", a.out,
            r.data.n_series, (long long)r.data.records);
  report_loaded_free(&r);
  return rc;
}
