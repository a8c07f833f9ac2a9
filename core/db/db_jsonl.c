/*
 * core/db/db_jsonl.c — exporting records as JSON lines: one object per
 * record with its workload inline, to a file or ("-") standard output.
 * The reverse direction is db_import.c.
 */
#include "db_internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static json_t *record_json(sqlite3_stmt *st) {
  tsl_db_record rec;
  db_record_from_row(st, &rec);
  json_t *w = json_pack("{s:s, s:s, s:s, s:f}", "hash", db_text(st, 12),
                        "name", db_text(st, 13), "script", db_text(st, 14),
                        "flops", sqlite3_column_double(st, 15));
  json_t *trace = json_loads(rec.trace_json, 0, NULL);
  json_t *times = json_array();
  for (uint32_t i = 0; times && i < rec.n_times; i++)
    json_array_append_new(times, json_real(rec.times_s[i]));
  json_t *o = json_object();
  json_object_set_new(o, "workload", w);
  json_object_set_new(o, "target", json_string(rec.target));
  json_object_set_new(o, "trace", trace ? trace : json_string(rec.trace_json));
  json_object_set_new(o, "decisions", json_string(rec.decisions));
  json_object_set_new(o, "status", json_integer(rec.status));
  json_object_set_new(o, "error", json_string(rec.error));
  json_object_set_new(o, "latency_s", json_real(rec.latency_s));
  json_object_set_new(o, "times_s", times);
  json_object_set_new(o, "build_s", json_real(rec.build_s));
  json_object_set_new(o, "version", json_string(rec.version));
  json_object_set_new(o, "timestamp", json_integer(rec.timestamp));
  return o;
}

int tsl_db_export(tsl_db *db, const char *jsonl_path, tsl_diag *diag) {
  int to_stdout = !strcmp(jsonl_path, "-");
  FILE *f = to_stdout ? stdout : fopen(jsonl_path, "w");
  if (!f)
    return tsl_diag_set(diag, TSL_EIO, "%s: cannot write: %s", jsonl_path,
                        strerror(errno));
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT r.id, r.workload_id, r.target, r.trace_json, "
                          "r.decisions, r.status, r.error, r.latency_s, "
                          "r.times_json, r.build_s, r.version, r.timestamp, "
                          "w.hash, w.name, w.script, w.flops FROM records r "
                          "JOIN workloads w ON w.id = r.workload_id ORDER BY r.id",
                      &st, diag);
  int s = SQLITE_DONE;
  while (rc == TSL_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    json_t *o = record_json(st);
    char *line = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(o);
    if (!line)
      rc = tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", jsonl_path);
    else if (fprintf(f, "%s\n", line) < 0)
      rc = tsl_diag_set(diag, TSL_EIO, "%s: cannot write: %s", jsonl_path,
                        strerror(errno));
    free(line);
  }
  if (rc == TSL_OK && s != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot read records");
  sqlite3_finalize(st);
  if ((to_stdout ? fflush(f) : fclose(f)) != 0 && rc == TSL_OK)
    rc = tsl_diag_set(diag, TSL_EIO, "%s: cannot write: %s", jsonl_path,
                      strerror(errno));
  return rc;
}
