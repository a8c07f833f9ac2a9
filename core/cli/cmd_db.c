/*
 * `tessel db stats|export|import`: statistics of a tuning database, and
 * moving its records to and from JSON lines (db.h).
 */
#include "cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_db_usage[] =
    "usage: tessel db stats DB [--json]\n"
    "       tessel db export DB --json OUT\n"
    "       tessel db import DB IN [--json]\n"
    "\n"
    "Inspect a tuning database (the SQLite file a tuning run writes) and move\n"
    "its records between databases.\n"
    "\n"
    "  stats DB          records, workloads, error records and targets, and per\n"
    "                    workload its records and best latency; --json prints one\n"
    "                    object: records, workloads, errors, targets, path,\n"
    "                    per_workload\n"
    "  export DB --json OUT\n"
    "                    write every record as JSON lines to OUT (one object per\n"
    "                    record, with its workload inline); OUT '-' is stdout\n"
    "  import DB IN      add the records of the JSON-lines file IN to DB (created\n"
    "                    if missing); records already in DB (same workload,\n"
    "                    target, decisions and time stamp) are skipped. IN is\n"
    "                    checked first (fields, scripts, traces, decisions): a\n"
    "                    bad line adds nothing and creates no database. Prints\n"
    "                    the added and skipped counts (--json: one object with\n"
    "                    added, skipped)\n"
    "\n"
    "stats, export and tessel best/report only read: they work on a database\n"
    "the user cannot write.\n"
    "\n"
    "exit status: 0 ok, 2 on a usage error or a database error\n";

typedef struct wl_stat {
  int64_t id;
  uint64_t hash;
  char *name;
  int64_t records, errors;
  double best_s, flops;
} wl_stat;

/* `u`: the tsl_vec of wl_stat being collected. */
static int collect_workload(void *u, const tsl_db_workload_info *w) {
  wl_stat *s = tsl_vec_push(u);
  *s = (wl_stat){w->id, w->hash, strdup(w->name), 0, 0, -1, w->flops};
  return 0;
}

static int collect_record(void *u, const tsl_db_record *r) {
  tsl_vec *a = u;
  for (uint32_t i = 0; i < a->len; i++) {
    wl_stat *w = &TSL_VEC_AT(a, wl_stat, i);
    if (w->id != r->workload_id)
      continue;
    w->records++;
    if (r->status != TSL_RUN_OK && r->status != TSL_RUN_STOPPED)
      w->errors++;
    else if (r->status == TSL_RUN_OK && r->latency_s >= 0 &&
             (w->best_s < 0 || r->latency_s < w->best_s))
      w->best_s = r->latency_s;
    break;
  }
  return 0;
}

static void print_seconds(double s) {
  if (s < 1e-3)
    printf("%.3f us", s * 1e6);
  else if (s < 1)
    printf("%.3f ms", s * 1e3);
  else
    printf("%.3f s", s);
}

static int db_stats(const char *path, int json) {
  tsl_diag d = {0};
  tsl_db *db;
  if (tsl_db_open(path, TSL_DB_READONLY, &db, &d) != TSL_OK)
    return cli_error("db", "%s", d.text);
  tsl_db_stats st;
  tsl_vec acc; /* wl_stat */
  tsl_vec_init(&acc, sizeof(wl_stat), NULL);
  int rc = tsl_db_get_stats(db, &st, &d);
  if (rc == TSL_OK)
    rc = tsl_db_each_workload(db, collect_workload, &acc, &d);
  if (rc == TSL_OK)
    rc = tsl_db_each(db, -1, NULL, collect_record, &acc, &d);
  const wl_stat *w = TSL_VEC_DATA(&acc, const wl_stat);
  int ret = CLI_OK;
  if (rc != TSL_OK) {
    ret = cli_error("db", "%s", d.text[0] ? d.text : tsl_status_name(rc));
  } else if (json) {
    json_t *per = json_array();
    for (uint32_t i = 0; i < acc.len; i++) {
      char hex[17];
      snprintf(hex, sizeof hex, "%016llx", (unsigned long long)w[i].hash);
      json_t *o = json_pack("{s:I, s:s, s:s, s:I, s:I, s:f}", "id",
                            (json_int_t)w[i].id, "name",
                            w[i].name ? w[i].name : "", "hash", hex,
                            "records", (json_int_t)w[i].records, "errors",
                            (json_int_t)w[i].errors, "flops", w[i].flops);
      json_object_set_new(o, "best_latency_s",
                          w[i].best_s >= 0 ? json_real(w[i].best_s) : json_null());
      json_array_append_new(per, o);
    }
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:o}", "path", path,
                          "records", (json_int_t)st.records, "workloads",
                          (json_int_t)st.workloads, "errors", (json_int_t)st.errors,
                          "targets", (json_int_t)st.targets, "per_workload", per);
    char *s = json_dumps(o, JSON_INDENT(2));
    printf("%s\n", s);
    free(s);
    json_decref(o);
  } else {
    printf("%s\n  records: %lld (%lld errors)\n  workloads: %lld\n  targets: %lld\n",
           path, (long long)st.records, (long long)st.errors,
           (long long)st.workloads, (long long)st.targets);
    for (uint32_t i = 0; i < acc.len; i++) {
      printf("  workload %lld %s (hash %016llx): %lld records, %lld errors, best ",
             (long long)w[i].id, w[i].name ? w[i].name : "",
             (unsigned long long)w[i].hash, (long long)w[i].records,
             (long long)w[i].errors);
      if (w[i].best_s >= 0)
        print_seconds(w[i].best_s);
      else
        printf("none");
      printf("\n");
    }
  }
  for (uint32_t i = 0; i < acc.len; i++)
    free(w[i].name);
  tsl_vec_free(&acc);
  tsl_db_close(db);
  return ret;
}

static int db_export(const char *path, const char *out) {
  tsl_diag d = {0};
  tsl_db *db;
  if (tsl_db_open(path, TSL_DB_READONLY, &db, &d) != TSL_OK)
    return cli_error("db", "%s", d.text);
  int rc = tsl_db_export(db, out, &d);
  tsl_db_close(db);
  if (rc != TSL_OK)
    return cli_error("db", "export: %s", d.text);
  return CLI_OK;
}

/* An import error that already says where ("FILE:LINE: error: ...") is
 * printed as it is. */
static int import_error(const char *text) {
  if (strstr(text, ": error: ")) {
    fprintf(stderr, "%s\n", text);
    return CLI_USAGE;
  }
  return cli_error("db", "import: %s", text);
}

static int db_import(const char *path, const char *in, int json) {
  tsl_diag d = {0};
  tsl_db *db;
  /* a missing or bad input must not leave a new, empty database behind */
  if (tsl_db_check_import(in, NULL, &d) != TSL_OK)
    return import_error(d.text);
  if (tsl_db_open(path, TSL_DB_CREATE, &db, &d) != TSL_OK)
    return cli_error("db", "%s", d.text);
  int64_t added = 0, skipped = 0;
  int rc = tsl_db_import(db, in, &added, &skipped, &d);
  tsl_db_close(db);
  if (rc != TSL_OK)
    return import_error(d.text);
  if (json)
    printf("{\"added\": %lld, \"skipped\": %lld}\n", (long long)added,
           (long long)skipped);
  else
    printf("%s: %lld records added, %lld skipped (already present)\n", path,
           (long long)added, (long long)skipped);
  return CLI_OK;
}

int cli_db(int argc, char **argv) {
  const char *pos[3] = {NULL, NULL, NULL};
  const char *json_out = NULL;
  int npos = 0, json = 0;
  if (argc < 2)
    return cli_error("db", "missing sub-command\nnote: valid: stats, export, "
                           "import (see tessel db --help)");
  const char *sub = argv[1];
  int is_export = !strcmp(sub, "export");
  if (strcmp(sub, "stats") && !is_export && strcmp(sub, "import"))
    return cli_error("db", "unknown sub-command '%s'\nnote: valid: stats, "
                           "export, import", sub);
  for (int i = 2; i < argc; i++) {
    const char *o = argv[i];
    if (!strcmp(o, "--json")) {
      if (is_export) {
        if (i + 1 >= argc)
          return cli_error("db", "export: --json needs the output file\n"
                                 "note: tessel db export DB --json OUT");
        json_out = argv[++i];
      } else {
        json = 1;
      }
    } else if (o[0] == '-' && o[1]) { /* "-" alone is a file name */
      return cli_error("db", "%s: unknown option '%s'\nnote: valid options: "
                             "--json, --help", sub, o);
    } else if (npos < 2) {
      pos[npos++] = o;
    } else {
      return cli_error("db", "%s: unexpected argument '%s'\nnote: see tessel "
                             "db --help", sub, o);
    }
  }
  if (!strcmp(sub, "stats")) {
    if (npos != 1)
      return cli_error("db", "stats takes one database\nnote: tessel db stats "
                             "DB [--json]");
    return db_stats(pos[0], json);
  }
  if (is_export) {
    if (npos != 1 || !json_out)
      return cli_error("db", "export takes a database and --json OUT\n"
                             "note: tessel db export DB --json OUT");
    return db_export(pos[0], json_out);
  }
  if (npos != 2)
    return cli_error("db", "import takes a database and a JSON-lines file\n"
                           "note: tessel db import DB IN [--json]");
  return db_import(pos[0], pos[1], json);
}
