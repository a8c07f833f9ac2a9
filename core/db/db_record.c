/*
 * core/db/db_record.c — records: appending one (its own implicit
 * transaction), membership and count queries, enumeration in id order,
 * the best OK record, and the database statistics.
 */
#include "db_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tessel/tessel.h"

char *db_times_to_json(const double *t, uint32_t n) {
  json_t *a = json_array();
  for (uint32_t i = 0; a && i < n; i++)
    json_array_append_new(a, json_real(t[i]));
  char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
  json_decref(a);
  return s;
}

int db_times_from_json(const char *s, double *t, uint32_t *n) {
  *n = 0;
  json_t *a = json_loads(s, 0, NULL);
  int rc = json_is_array(a) && json_array_size(a) <= TSL_DB_MAX_TIMES ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < json_array_size(a); i++) {
    json_t *v = json_array_get(a, i);
    if (!json_is_number(v))
      rc = -1;
    else
      t[(*n)++] = json_number_value(v);
  }
  json_decref(a);
  return rc;
}

void db_record_from_row(sqlite3_stmt *st, tsl_db_record *rec) {
  memset(rec, 0, sizeof *rec);
  rec->struct_size = sizeof *rec;
  rec->id = sqlite3_column_int64(st, 0);
  rec->workload_id = sqlite3_column_int64(st, 1);
  rec->target = db_text(st, 2);
  rec->trace_json = db_text(st, 3);
  rec->decisions = db_text(st, 4);
  rec->status = (int32_t)sqlite3_column_int64(st, 5);
  rec->error = db_text(st, 6);
  rec->latency_s = sqlite3_column_double(st, 7);
  if (db_times_from_json(db_text(st, 8), rec->times_s, &rec->n_times) != 0)
    rec->n_times = 0;
  rec->build_s = sqlite3_column_double(st, 9);
  rec->version = db_text(st, 10);
  rec->timestamp = sqlite3_column_int64(st, 11);
}

static int check_record(tsl_db *db, const tsl_db_record *rec, tsl_diag *diag) {
  const char *bad = NULL;
  if (!rec->target || !*rec->target)
    bad = "the target description is empty";
  else if (!rec->trace_json || !*rec->trace_json)
    bad = "the trace is empty (give tsl_trace_to_json's text)";
  else if (!rec->decisions)
    bad = "the decisions key is missing (give tsl_trace_decisions_key's text)";
  else if (rec->n_times > TSL_DB_MAX_TIMES)
    bad = "more than TSL_DB_MAX_TIMES (64) measured times";
  else if (rec->status < TSL_RUN_OK || rec->status > TSL_RUN_STOPPED)
    bad = "the status is not a TSL_RUN_* code of runner.h (0 to 7)";
  else if (isnan(rec->latency_s) || isnan(rec->build_s))
    bad = "a time is NaN";
  if (!bad)
    for (uint32_t i = 0; i < rec->n_times; i++)
      if (!isfinite(rec->times_s[i]))
        bad = "a measured time is not a finite number";
  if (bad)
    return tsl_diag_set(diag, TSL_EINVALID, "%s: cannot add the record: %s",
                        db->path, bad);
  return TSL_OK;
}

int db_insert_record(tsl_db *db, tsl_db_record *rec, tsl_diag *diag) {
  int rc = check_record(db, rec, diag);
  if (rc != TSL_OK)
    return rc;
  char *times = db_times_to_json(rec->times_s, rec->n_times);
  if (!times)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", db->path);
  sqlite3_stmt *st;
  rc = db_prepare(db, "INSERT INTO records (workload_id, target, trace_json, "
                      "decisions, status, error, latency_s, times_json, build_s, "
                      "version, timestamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                      "?8, ?9, ?10, ?11)", &st, diag);
  if (rc == TSL_OK) {
    sqlite3_bind_int64(st, 1, rec->workload_id);
    sqlite3_bind_text(st, 2, rec->target, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, rec->trace_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, rec->decisions, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, rec->status);
    if (rec->error && *rec->error)
      sqlite3_bind_text(st, 6, rec->error, -1, SQLITE_STATIC);
    else
      sqlite3_bind_null(st, 6);
    sqlite3_bind_double(st, 7, rec->latency_s);
    sqlite3_bind_text(st, 8, times, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 9, rec->build_s);
    sqlite3_bind_text(st, 10, rec->version && *rec->version ? rec->version
                                                            : TSL_VERSION_STRING,
                      -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 11, rec->timestamp > 0 ? rec->timestamp
                                                  : (int64_t)time(NULL));
    int s = sqlite3_step(st);
    if (s == SQLITE_DONE) {
      rec->id = sqlite3_last_insert_rowid(db->h);
    } else if (sqlite3_extended_errcode(db->h) == SQLITE_CONSTRAINT_FOREIGNKEY) {
      rc = tsl_diag_set(diag, TSL_ENOTFOUND,
                        "%s: cannot add the record: no workload with id %lld "
                        "(get one from tsl_db_workload)",
                        db->path, (long long)rec->workload_id);
    } else {
      rc = db_fail(db, diag, TSL_EIO, "cannot add the record");
    }
  }
  sqlite3_finalize(st);
  free(times);
  return rc;
}

int tsl_db_add(tsl_db *db, tsl_db_record *rec, tsl_diag *diag) {
  if (db->readonly)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: the database was opened read-only; records can "
                        "only be added to one opened with TSL_DB_CREATE",
                        db->path);
  /* the record and the drop of our claim commit together */
  int own_tx = sqlite3_get_autocommit(db->h);
  int rc = own_tx ? db_exec(db, "BEGIN IMMEDIATE", diag) : TSL_OK;
  if (rc != TSL_OK)
    return rc;
  rc = db_insert_record(db, rec, diag);
  if (rc == TSL_OK)
    rc = db_drop_claim(db, rec, diag);
  if (own_tx) {
    if (rc == TSL_OK)
      rc = db_exec(db, "COMMIT", diag);
    if (rc != TSL_OK)
      sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  }
  if (rc != TSL_OK)
    rec->id = 0;
  return rc;
}

int tsl_db_has(tsl_db *db, int64_t workload_id, const char *target,
               const char *decisions, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT 1 FROM records WHERE workload_id = ?1 AND "
                          "target = ?2 AND decisions = ?3 LIMIT 1", &st, diag);
  if (rc != TSL_OK)
    return rc;
  sqlite3_bind_int64(st, 1, workload_id);
  sqlite3_bind_text(st, 2, target ? target : "", -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, decisions ? decisions : "", -1, SQLITE_STATIC);
  int s = sqlite3_step(st);
  rc = s == SQLITE_ROW ? 1 : s == SQLITE_DONE ? 0
                           : db_fail(db, diag, TSL_EIO, "cannot look up a record");
  sqlite3_finalize(st);
  return rc;
}

/* Filters shared by count / each / best: ?1 workload (< 0: all), ?2 target
 * (NULL: all). */
#define DB_FILTER "(?1 < 0 OR workload_id = ?1) AND (?2 IS NULL OR target = ?2)"

static void bind_filter(sqlite3_stmt *st, int64_t workload_id,
                        const char *target) {
  sqlite3_bind_int64(st, 1, workload_id);
  if (target)
    sqlite3_bind_text(st, 2, target, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, 2);
}

int tsl_db_count(tsl_db *db, int64_t workload_id, const char *target,
                 int64_t *n, tsl_diag *diag) {
  sqlite3_stmt *st;
  *n = 0;
  int rc = db_prepare(db, "SELECT count(*) FROM records WHERE " DB_FILTER, &st, diag);
  if (rc != TSL_OK)
    return rc;
  bind_filter(st, workload_id, target);
  if (sqlite3_step(st) == SQLITE_ROW)
    *n = sqlite3_column_int64(st, 0);
  else
    rc = db_fail(db, diag, TSL_EIO, "cannot count records");
  sqlite3_finalize(st);
  return rc;
}

/* Runs a prepared record query, calling fn per row; TSL_ENOTFOUND when
 * `need_one` and there was no row. */
static int each_row(tsl_db *db, sqlite3_stmt *st, tsl_db_record_fn fn,
                    void *user_data, int need_one, tsl_diag *diag) {
  int rc = 0, s, rows = 0;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    tsl_db_record rec;
    db_record_from_row(st, &rec);
    rows++;
    rc = fn(user_data, &rec);
    if (rc != 0)
      break;
  }
  if (rc == 0 && s != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot read records");
  else if (rc == 0 && need_one && rows == 0)
    rc = TSL_ENOTFOUND;
  sqlite3_finalize(st);
  return rc;
}

int tsl_db_each(tsl_db *db, int64_t workload_id, const char *target,
                tsl_db_record_fn fn, void *user_data, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT " DB_RECORD_COLUMNS " FROM records WHERE "
                      DB_FILTER " ORDER BY id", &st, diag);
  if (rc != TSL_OK)
    return rc;
  bind_filter(st, workload_id, target);
  return each_row(db, st, fn, user_data, 0, diag);
}

/* The k fastest successful records; need_one: TSL_ENOTFOUND when none. */
static int fastest(tsl_db *db, int64_t workload_id, const char *target, uint32_t k,
                   int need_one, tsl_db_record_fn fn, void *user_data, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT " DB_RECORD_COLUMNS " FROM records WHERE "
                      DB_FILTER " AND status = 0 AND latency_s >= 0 "
                      "ORDER BY latency_s, id LIMIT ?3", &st, diag);
  if (rc != TSL_OK)
    return rc;
  bind_filter(st, workload_id, target);
  sqlite3_bind_int64(st, 3, k);
  return each_row(db, st, fn, user_data, need_one, diag);
}

int tsl_db_top(tsl_db *db, int64_t workload_id, const char *target, uint32_t k,
               tsl_db_record_fn fn, void *user_data, tsl_diag *diag) {
  return fastest(db, workload_id, target, k, 0, fn, user_data, diag);
}

int tsl_db_best(tsl_db *db, int64_t workload_id, const char *target,
                tsl_db_record_fn fn, void *user_data, tsl_diag *diag) {
  int rc = fastest(db, workload_id, target, 1, 1, fn, user_data, diag);
  if (rc == TSL_ENOTFOUND)
    tsl_diag_set(diag, rc, "%s: no successful record for workload %lld%s%s",
                 db->path, (long long)workload_id,
                 target ? " and target " : "", target ? target : "");
  return rc;
}

int tsl_db_get_stats(tsl_db *db, tsl_db_stats *out, tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT (SELECT count(*) FROM records), "
                          "(SELECT count(*) FROM workloads), "
                          "(SELECT count(*) FROM records WHERE status NOT IN (0, 7)), "
                          "(SELECT count(DISTINCT target) FROM records)",
                      &st, diag);
  if (rc != TSL_OK)
    return rc;
  if (sqlite3_step(st) == SQLITE_ROW) {
    out->records = sqlite3_column_int64(st, 0);
    out->workloads = sqlite3_column_int64(st, 1);
    out->errors = sqlite3_column_int64(st, 2);
    out->targets = sqlite3_column_int64(st, 3);
  } else {
    rc = db_fail(db, diag, TSL_EIO, "cannot read the statistics");
  }
  sqlite3_finalize(st);
  return rc;
}
