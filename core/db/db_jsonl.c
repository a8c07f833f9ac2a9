/*
 * core/db/db_jsonl.c — moving records between databases as JSON lines.
 * Export writes one object per record with its workload inline; import
 * re-derives each workload's hash and canonical script from the script
 * text (so the keys agree with this tessel's tsl_db_workload), checks the
 * trace, skips records already present and adds the rest in one
 * transaction: a bad line rolls everything back.
 */
#include "db_internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/analysis.h"
#include "tessel/schedule.h"
#include "tessel/script.h"

/* ---- export -------------------------------------------------------------- */

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
  FILE *f = fopen(jsonl_path, "w");
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
  if (fclose(f) != 0 && rc == TSL_OK)
    rc = tsl_diag_set(diag, TSL_EIO, "%s: cannot write: %s", jsonl_path,
                      strerror(errno));
  return rc;
}

/* ---- import -------------------------------------------------------------- */

typedef struct import_state {
  tsl_db *db;
  const char *path;
  long line;
  tsl_ctx *ctx;
  /* workloads seen in this file: script text as written -> id */
  char **scripts;
  int64_t *ids;
  size_t n, cap;
} import_state;

#define LINE_ERR(S, ...)                                                       \
  line_error((S), diag, __VA_ARGS__)

static int line_error(import_state *s, tsl_diag *diag, const char *fmt, ...)
    TSL_PRINTF(3, 4);
static int line_error(import_state *s, tsl_diag *diag, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tsl_diag_set(diag, TSL_EPARSE,
                      "%s:%ld: error: %s\nnote: nothing of %s was added to %s",
                      s->path, s->line, msg, s->path, s->db->path);
}

static int workload_of(import_state *s, json_t *w, int64_t *id, tsl_diag *diag) {
  const char *script = NULL, *name = NULL, *hash = NULL;
  double flops = 0;
  if (!json_is_object(w) ||
      json_unpack(w, "{s:s, s:s, s?s, s?F}", "script", &script, "name", &name,
                  "hash", &hash, "flops", &flops) != 0)
    return LINE_ERR(s, "\"workload\" must be an object with strings \"script\" "
                       "and \"name\" (and optional \"hash\", \"flops\")");
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->scripts[i], script)) {
      *id = s->ids[i];
      return TSL_OK;
    }
  tsl_arena *arena = tsl_arena_new(s->ctx);
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  int rc = tsl_parse(arena, "workload.script", script, strlen(script), &m, &d);
  if (rc != TSL_OK || m->n_funcs != 1) {
    tsl_arena_free(arena);
    return LINE_ERR(s, "the workload's script is not one prim_func: %s",
                    rc != TSL_OK ? d.text : "several functions");
  }
  const tsl_func *f = m->funcs[0];
  char *canon = tsl_print_func(f);
  rc = canon ? db_workload_lookup(s->db, tsl_func_hash(f), f->name, canon,
                                  flops, id, NULL, diag)
             : tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", s->path);
  free(canon);
  tsl_arena_free(arena);
  if (rc != TSL_OK)
    return rc;
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 8;
    char **sc = realloc(s->scripts, cap * sizeof *sc);
    if (sc)
      s->scripts = sc;
    int64_t *ids = realloc(s->ids, cap * sizeof *ids);
    if (ids)
      s->ids = ids;
    if (!sc || !ids)
      return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", s->path);
    s->cap = cap;
  }
  if (!(s->scripts[s->n] = strdup(script)))
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", s->path);
  s->ids[s->n++] = *id;
  return TSL_OK;
}

static int is_present(tsl_db *db, const tsl_db_record *r, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT 1 FROM records WHERE workload_id = ?1 AND "
                          "target = ?2 AND decisions = ?3 AND timestamp = ?4 "
                          "LIMIT 1", &st, diag);
  if (rc != TSL_OK)
    return rc;
  sqlite3_bind_int64(st, 1, r->workload_id);
  sqlite3_bind_text(st, 2, r->target, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, r->decisions, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 4, r->timestamp);
  int x = sqlite3_step(st);
  rc = x == SQLITE_ROW ? 1 : x == SQLITE_DONE ? 0
                           : db_fail(db, diag, TSL_EIO, "cannot look up a record");
  sqlite3_finalize(st);
  return rc;
}

/* One line: 1 added, 0 skipped, negative on error. */
static int import_line(import_state *s, const char *text, tsl_diag *diag) {
  json_error_t je;
  json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
  if (!o)
    return je.column > 0 ? LINE_ERR(s, "column %d: invalid JSON: %s", je.column, je.text)
                         : LINE_ERR(s, "invalid JSON: %s", je.text);
  int rc = TSL_OK;
  tsl_db_record r = {0};
  r.struct_size = sizeof r;
  json_t *w = NULL, *trace = NULL, *times = NULL, *err = NULL;
  json_int_t status = 0, ts = 0;
  const char *version = NULL;
  r.build_s = -1;
  if (!json_is_object(o) ||
      json_unpack(o, "{s:o, s:s, s:o, s:s, s:I, s?o, s:F, s?o, s?F, s?s, s:I}",
                  "workload", &w, "target", &r.target, "trace", &trace,
                  "decisions", &r.decisions, "status", &status, "error", &err,
                  "latency_s", &r.latency_s, "times_s", &times, "build_s",
                  &r.build_s, "version", &version, "timestamp", &ts) != 0) {
    rc = LINE_ERR(s, "a record needs \"workload\" (object), \"target\" "
                     "(string), \"trace\", \"decisions\" (string), \"status\" "
                     "(integer), \"latency_s\" (number), \"timestamp\" "
                     "(integer); optional \"error\", \"times_s\", "
                     "\"build_s\", \"version\"");
    goto done;
  }
  if (status < 0 || status > INT32_MAX || ts <= 0) {
    rc = LINE_ERR(s, "\"status\" must be a TSL_RUN_* code (>= 0) and "
                     "\"timestamp\" positive Unix seconds");
    goto done;
  }
  r.status = (int32_t)status;
  r.timestamp = ts;
  r.version = version;
  if (err && !json_is_null(err) && !json_is_string(err)) {
    rc = LINE_ERR(s, "\"error\" must be a string or null");
    goto done;
  }
  r.error = json_is_string(err) ? json_string_value(err) : NULL;
  if (times && !json_is_null(times)) {
    if (!json_is_array(times) || json_array_size(times) > TSL_DB_MAX_TIMES) {
      rc = LINE_ERR(s, "\"times_s\" must be an array of at most %d numbers",
                    TSL_DB_MAX_TIMES);
      goto done;
    }
    for (size_t i = 0; i < json_array_size(times); i++) {
      json_t *v = json_array_get(times, i);
      if (!json_is_number(v)) {
        rc = LINE_ERR(s, "\"times_s\"[%zu] is not a number", i);
        goto done;
      }
      r.times_s[r.n_times++] = json_number_value(v);
    }
  }
  char *trace_text = json_is_string(trace)
                         ? strdup(json_string_value(trace))
                         : json_dumps(trace, JSON_COMPACT | JSON_REAL_PRECISION(17));
  tsl_trace *t = NULL;
  tsl_diag td = {0};
  if (!trace_text || tsl_trace_from_json(s->ctx, trace_text, &t, &td) != TSL_OK) {
    rc = LINE_ERR(s, "\"trace\" is not a tessel trace: %s",
                  trace_text ? td.text : "out of memory");
  } else {
    tsl_trace_free(t);
    r.trace_json = trace_text;
    rc = workload_of(s, w, &r.workload_id, diag);
    if (rc == TSL_OK)
      rc = is_present(s->db, &r, diag);
    if (rc == 0) {
      rc = db_insert_record(s->db, &r, diag);
      if (rc == TSL_OK)
        rc = 1;
      else if (rc == TSL_EINVALID)
        rc = LINE_ERR(s, "%s", diag->text);
    } else if (rc == 1) {
      rc = 0;
    }
  }
  free(trace_text);
done:
  json_decref(o);
  return rc;
}

int tsl_db_import(tsl_db *db, const char *jsonl_path, int64_t *n_added,
                  int64_t *n_skipped, tsl_diag *diag) {
  int64_t added = 0, skipped = 0;
  if (n_added)
    *n_added = 0;
  if (n_skipped)
    *n_skipped = 0;
  if (db->readonly)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: the database was opened read-only; import needs "
                        "one opened with TSL_DB_CREATE", db->path);
  FILE *f = fopen(jsonl_path, "r");
  if (!f)
    return tsl_diag_set(diag, TSL_EIO, "%s: cannot read: %s", jsonl_path,
                        strerror(errno));
  import_state s = {db, jsonl_path, 0, tsl_ctx_new(), NULL, NULL, 0, 0};
  int rc = s.ctx ? db_exec(db, "BEGIN IMMEDIATE", diag)
                 : tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", jsonl_path);
  int in_tx = rc == TSL_OK;
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  while (rc == TSL_OK && (len = getline(&buf, &cap, f)) >= 0) {
    s.line++;
    if ((size_t)len != strlen(buf)) {
      rc = LINE_ERR(&s, "the line holds a NUL byte");
      break;
    }
    const char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
      p++;
    if (!*p)
      continue; /* blank lines are allowed */
    int r = import_line(&s, buf, diag);
    if (r < 0)
      rc = r;
    else if (r == 1)
      added++;
    else
      skipped++;
  }
  if (rc == TSL_OK && ferror(f))
    rc = tsl_diag_set(diag, TSL_EIO, "%s: cannot read: %s", jsonl_path,
                      strerror(errno));
  if (in_tx) {
    if (rc == TSL_OK)
      rc = db_exec(db, "COMMIT", diag);
    if (rc != TSL_OK)
      sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  }
  free(buf);
  fclose(f);
  for (size_t i = 0; i < s.n; i++)
    free(s.scripts[i]);
  free(s.scripts);
  free(s.ids);
  tsl_ctx_free(s.ctx);
  if (rc == TSL_OK) {
    if (n_added)
      *n_added = added;
    if (n_skipped)
      *n_skipped = skipped;
  }
  return rc;
}
