/*
 * core/db/db_import.c — importing JSON lines (the format of db_jsonl.c).
 * Every field is type-checked by name; each workload's hash and canonical
 * script are re-derived from its script text (so keys agree with this
 * tessel's tsl_db_workload); the trace is parsed and its decisions key
 * recomputed and compared. Records already present are skipped, the rest
 * added in one transaction: a bad line rolls everything back.
 * tsl_db_check_import runs the same checks without a database.
 */
#include "db_internal.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/analysis.h"
#include "tessel/container.h"
#include "tessel/runner.h"
#include "tessel/schedule.h"
#include "tessel/script.h"
#include "tessel/search.h"

/* A workload seen in the file: its script text as written and its id. */
typedef struct seen_workload {
  char *script;
  int64_t id;
} seen_workload;

typedef struct import_state {
  tsl_db *db; /* NULL: only check */
  const char *path;
  long line;
  tsl_ctx *ctx;
  tsl_vec seen; /* seen_workload */
} import_state;

#define LINE_ERR(S, ...) line_error((S), diag, __VA_ARGS__)

static int line_error(import_state *s, tsl_diag *diag, const char *fmt, ...)
    TSL_PRINTF(3, 4);
static int line_error(import_state *s, tsl_diag *diag, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* a nested diagnostic (the parser's, with its source excerpt) keeps its
   * first line: the error is one line, then the note */
  char *nl = strchr(msg, '\n');
  if (nl)
    *nl = '\0';
  if (!s->db)
    return tsl_diag_set(diag, TSL_EPARSE, "%s:%ld: error: %s\nnote: nothing "
                        "was imported", s->path, s->line, msg);
  return tsl_diag_set(diag, TSL_EPARSE,
                      "%s:%ld: error: %s\nnote: nothing of %s was added to %s",
                      s->path, s->line, msg, s->path, s->db->path);
}

/* ---- typed fields ----------------------------------------------------------- */

enum { F_STRING, F_NUMBER, F_INTEGER, F_OBJECT, F_ARRAY, F_TRACE };

static const char *const type_names[] = {
    "a string", "a number", "an integer", "an object", "an array",
    "an object (a tessel trace) or a string holding one"};

static int type_ok(json_t *v, int type) {
  switch (type) {
  case F_STRING: return json_is_string(v);
  case F_NUMBER: return json_is_number(v);
  case F_INTEGER: return json_is_integer(v);
  case F_OBJECT: return json_is_object(v);
  case F_ARRAY: return json_is_array(v);
  default: return json_is_object(v) || json_is_string(v);
  }
}

/* The value as compact JSON for a message, shortened to ~60 characters. */
static void show(json_t *v, char out[80]) {
  char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  if (!t)
    snprintf(out, 80, "a value");
  else if (strlen(t) > 60)
    snprintf(out, 80, "%.57s...", t);
  else
    snprintf(out, 80, "%s", t);
  free(t);
}

/* o[key] checked against `type`; *v NULL when absent (or null and
 * `optional`). A missing required field or a wrong type is an error naming
 * the field, the expected type and what was there. */
static int field(import_state *s, json_t *o, const char *key, int type,
                 int optional, json_t **v, tsl_diag *diag) {
  *v = json_object_get(o, key);
  if (optional && json_is_null(*v))
    *v = NULL;
  if (!*v)
    return optional ? TSL_OK
                    : LINE_ERR(s, "%s: missing (expected %s)", key, type_names[type]);
  if (type_ok(*v, type))
    return TSL_OK;
  char got[80];
  show(*v, got);
  return LINE_ERR(s, "%s: expected %s%s, got %s", key, type_names[type],
                  optional ? " (or null)" : "", got);
}

/* ---- workloads -------------------------------------------------------------- */

static int remember(import_state *s, const char *script, int64_t id,
                    tsl_diag *diag) {
  char *copy = strdup(script);
  if (!copy)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", s->path);
  *(seen_workload *)tsl_vec_push(&s->seen) = (seen_workload){copy, id};
  return TSL_OK;
}

static int workload_of(import_state *s, json_t *w, int64_t *id, tsl_diag *diag) {
  json_t *script_v, *name_v, *hash_v, *flops_v;
  int rc;
  if ((rc = field(s, w, "script", F_STRING, 0, &script_v, diag)) ||
      (rc = field(s, w, "name", F_STRING, 0, &name_v, diag)) ||
      (rc = field(s, w, "hash", F_STRING, 1, &hash_v, diag)) ||
      (rc = field(s, w, "flops", F_NUMBER, 1, &flops_v, diag)))
    return rc;
  const char *script = json_string_value(script_v);
  double flops = flops_v ? json_number_value(flops_v) : 0;
  const seen_workload *seen = TSL_VEC_DATA(&s->seen, const seen_workload);
  for (uint32_t i = 0; i < s->seen.len; i++)
    if (!strcmp(seen[i].script, script)) {
      *id = seen[i].id;
      return TSL_OK;
    }
  tsl_arena *arena = tsl_arena_new(s->ctx);
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  rc = arena ? tsl_parse(arena, "workload.script", script, strlen(script), &m, &d)
             : TSL_ENOMEM;
  if (rc != TSL_OK || m->n_funcs != 1) {
    tsl_arena_free(arena);
    return LINE_ERR(s, "workload.script: not one prim_func: %s",
                    rc != TSL_OK ? d.text : "several functions");
  }
  const tsl_func *f = m->funcs[0];
  flops = tsl_func_flops(f); /* like the hash: from the script, not the line */
  *id = 0;
  if (s->db) {
    char *canon = tsl_print_func(f);
    rc = canon ? db_workload_lookup(s->db, tsl_func_hash(f), f->name, canon,
                                    flops, id, NULL, diag)
               : tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", s->path);
    free(canon);
  }
  tsl_arena_free(arena);
  return rc != TSL_OK ? rc : remember(s, script, *id, diag);
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

/* ---- one line ---------------------------------------------------------------- */

/* Fields of `o` into r (strings point into `o`); the trace text (heap) into
 * *trace_text. */
static int read_fields(import_state *s, json_t *o, tsl_db_record *r,
                       json_t **workload, char **trace_text, tsl_diag *diag) {
  json_t *target, *trace, *dec, *status, *err, *lat, *times, *build, *ver, *ts;
  int rc;
  if ((rc = field(s, o, "workload", F_OBJECT, 0, workload, diag)) ||
      (rc = field(s, o, "target", F_STRING, 0, &target, diag)) ||
      (rc = field(s, o, "trace", F_TRACE, 0, &trace, diag)) ||
      (rc = field(s, o, "decisions", F_STRING, 0, &dec, diag)) ||
      (rc = field(s, o, "status", F_INTEGER, 0, &status, diag)) ||
      (rc = field(s, o, "error", F_STRING, 1, &err, diag)) ||
      (rc = field(s, o, "latency_s", F_NUMBER, 0, &lat, diag)) ||
      (rc = field(s, o, "times_s", F_ARRAY, 1, &times, diag)) ||
      (rc = field(s, o, "build_s", F_NUMBER, 1, &build, diag)) ||
      (rc = field(s, o, "version", F_STRING, 1, &ver, diag)) ||
      (rc = field(s, o, "timestamp", F_INTEGER, 0, &ts, diag)))
    return rc;
  static const char *const known[] = {"workload", "target", "trace", "decisions",
                                      "status", "error", "latency_s", "times_s",
                                      "build_s", "version", "timestamp", NULL};
  static const char *const known_w[] = {"script", "name", "hash", "flops", NULL};
  const char *k;
  json_t *unused;
  json_object_foreach(o, k, unused) {
    int i = 0;
    while (known[i] && strcmp(known[i], k))
      i++;
    if (!known[i])
      return LINE_ERR(s, "unknown field '%.100s'; valid: workload, target, trace, "
                         "decisions, status, error, latency_s, times_s, build_s, "
                         "version, timestamp", k);
  }
  json_object_foreach(*workload, k, unused) {
    int i = 0;
    while (known_w[i] && strcmp(known_w[i], k))
      i++;
    if (!known_w[i])
      return LINE_ERR(s, "unknown field 'workload.%.100s'; valid: script, name, hash, "
                         "flops", k);
  }
  if (!json_string_value(target)[0])
    return LINE_ERR(s, "target: empty; valid: a target description as tessel "
                       "db stats prints it");
  json_int_t st = json_integer_value(status);
  double latency = json_number_value(lat);
  if (st == TSL_RUN_OK && !(latency > 0 && isfinite(latency)))
    return LINE_ERR(s, "latency_s: a successful record (status 0) needs a latency "
                       "> 0, got %g", latency);

  if (st < TSL_RUN_OK || st > TSL_RUN_STOPPED)
    return LINE_ERR(s, "status: %lld is not a TSL_RUN_* code (valid: 0 ok to "
                       "7 stopped, see runner.h)", (long long)st);
  if (json_integer_value(ts) <= 0)
    return LINE_ERR(s, "timestamp: expected positive Unix seconds, got %lld",
                    (long long)json_integer_value(ts));
  if (times && json_array_size(times) > TSL_DB_MAX_TIMES)
    return LINE_ERR(s, "times_s: more than %d times", TSL_DB_MAX_TIMES);
  for (size_t i = 0; times && i < json_array_size(times); i++) {
    json_t *v = json_array_get(times, i);
    if (!json_is_number(v)) {
      char got[80];
      show(v, got);
      return LINE_ERR(s, "times_s[%zu]: expected a number, got %s", i, got);
    }
    r->times_s[r->n_times++] = json_number_value(v);
  }
  r->target = json_string_value(target);
  r->decisions = json_string_value(dec);
  r->status = (int32_t)st;
  r->error = err ? json_string_value(err) : NULL;
  r->latency_s = json_number_value(lat);
  r->build_s = build ? json_number_value(build) : -1;
  r->version = ver ? json_string_value(ver) : NULL;
  r->timestamp = json_integer_value(ts);
  *trace_text = json_is_string(trace)
                    ? strdup(json_string_value(trace))
                    : json_dumps(trace, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (!*trace_text)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", s->path);
  return TSL_OK;
}

/* The trace parses and its key is the line's; a key of tessel 0.2 (the
 * decisions alone) is accepted when it is the key's decisions part, and
 * replaced by the key (*key_out, heap). */
static int check_trace(import_state *s, const tsl_db_record *r, char **key_out,
                       tsl_diag *diag) {
  tsl_trace *t = NULL;
  tsl_diag td = {0};
  if (tsl_trace_from_json(s->ctx, r->trace_json, &t, &td) != TSL_OK)
    return LINE_ERR(s, "trace: not a tessel trace: %s", td.text);
  char *key = tsl_trace_decisions_key(t);
  tsl_trace_free(t);
  if (!key)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", s->path);
  size_t n = tsl_key_decisions_len(key);
  int old = !strchr(r->decisions, '@') && strlen(r->decisions) == n &&
            !strncmp(key, r->decisions, n);
  if (strcmp(key, r->decisions) != 0 && !old) {
    int rc = LINE_ERR(s, "decisions: do not match the trace (the line has '%.200s', "
                         "the trace's key is '%.200s')", r->decisions, key);
    free(key);
    return rc;
  }
  *key_out = key;
  return TSL_OK;
}

/* One line: 1 added (or checked), 0 skipped, negative on error. */
static int import_line(import_state *s, const char *text, tsl_diag *diag) {
  json_error_t je;
  json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
  if (!o)
    return je.column > 0 ? LINE_ERR(s, "column %d: invalid JSON: %s", je.column, je.text)
                         : LINE_ERR(s, "invalid JSON: %s", je.text);
  tsl_db_record r = {0};
  r.struct_size = sizeof r;
  json_t *w = NULL;
  char *trace_text = NULL;
  int rc;
  if (!json_is_object(o)) {
    char got[80];
    show(o, got);
    rc = LINE_ERR(s, "expected one JSON object per record, got %s", got);
  } else {
    rc = read_fields(s, o, &r, &w, &trace_text, diag);
  }
  r.trace_json = trace_text;
  char *key = NULL;
  if (rc == TSL_OK && (rc = check_trace(s, &r, &key, diag)) == TSL_OK)
    r.decisions = key;
  if (rc == TSL_OK)
    rc = workload_of(s, w, &r.workload_id, diag);
  if (rc == TSL_OK && !s->db)
    rc = 1;
  else if (rc == TSL_OK && (rc = is_present(s->db, &r, diag)) == 0) {
    rc = db_insert_record(s->db, &r, diag);
    if (rc == TSL_OK)
      rc = 1;
    else if (rc == TSL_EINVALID)
      rc = LINE_ERR(s, "%s", diag->text);
  } else if (rc == 1) {
    rc = 0;
  }
  free(key);
  free(trace_text);
  json_decref(o);
  return rc;
}

/* Every line of the open file f; counts set on success. */
static int each_line(import_state *s, FILE *f, int64_t *added, int64_t *skipped,
                     tsl_diag *diag) {
  int rc = TSL_OK;
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  while (rc == TSL_OK && (len = getline(&buf, &cap, f)) >= 0) {
    s->line++;
    if ((size_t)len != strlen(buf)) {
      rc = LINE_ERR(s, "the line holds a NUL byte");
      break;
    }
    const char *p = buf;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
      p++;
    if (!*p)
      continue; /* blank lines are allowed */
    int r = import_line(s, buf, diag);
    if (r < 0)
      rc = r;
    else if (r == 1)
      (*added)++;
    else
      (*skipped)++;
  }
  if (rc == TSL_OK && ferror(f))
    rc = tsl_diag_set(diag, TSL_EIO, "%s: cannot read: %s", s->path,
                      strerror(errno));
  free(buf);
  return rc;
}

static void state_free(import_state *s) {
  for (uint32_t i = 0; i < s->seen.len; i++)
    free(TSL_VEC_AT(&s->seen, seen_workload, i).script);
  tsl_vec_free(&s->seen);
  tsl_ctx_free(s->ctx);
}

static FILE *open_input(const char *path, tsl_diag *diag) {
  FILE *f = fopen(path, "r");
  if (!f)
    tsl_diag_set(diag, TSL_EIO, "%s: cannot read: %s", path, strerror(errno));
  return f;
}

int tsl_db_check_import(const char *jsonl_path, int64_t *n_records,
                        tsl_diag *diag) {
  if (n_records)
    *n_records = 0;
  FILE *f = open_input(jsonl_path, diag);
  if (!f)
    return TSL_EIO;
  import_state s = {NULL, jsonl_path, 0, tsl_ctx_new(), {0}};
  tsl_vec_init(&s.seen, sizeof(seen_workload), NULL);
  int64_t n = 0, skipped = 0;
  int rc = s.ctx ? each_line(&s, f, &n, &skipped, diag)
                 : tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", jsonl_path);
  fclose(f);
  state_free(&s);
  if (rc == TSL_OK && n_records)
    *n_records = n;
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
  FILE *f = open_input(jsonl_path, diag);
  if (!f)
    return TSL_EIO;
  import_state s = {db, jsonl_path, 0, tsl_ctx_new(), {0}};
  tsl_vec_init(&s.seen, sizeof(seen_workload), NULL);
  int rc = s.ctx ? db_exec(db, "BEGIN IMMEDIATE", diag)
                 : tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", jsonl_path);
  if (rc == TSL_OK) {
    rc = each_line(&s, f, &added, &skipped, diag);
    if (rc == TSL_OK)
      rc = db_exec(db, "COMMIT", diag);
    if (rc != TSL_OK)
      sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  }
  fclose(f);
  state_free(&s);
  if (rc == TSL_OK) {
    if (n_added)
      *n_added = added;
    if (n_skipped)
      *n_skipped = skipped;
  }
  return rc;
}
