/*
 * core/db/db_remeasure.c — schema version 4: the figures of records
 * re-measured at the end of a tuning run (`remeasured`: median, fastest
 * and slowest round, the number of rounds), one row per record, replaced
 * when a later run measures the record again. A database of version 3
 * gets the table in one transaction.
 */
#include "db_internal.h"

#include <string.h>

static const char *const remeasured_sql =
    "CREATE TABLE IF NOT EXISTS remeasured ("
    "  record_id INTEGER PRIMARY KEY REFERENCES records(id),"
    "  median_s REAL NOT NULL,"
    "  min_s REAL NOT NULL,"
    "  max_s REAL NOT NULL,"
    "  rounds INTEGER NOT NULL,"
    "  timestamp INTEGER NOT NULL);"
    "PRAGMA user_version = 4;";

static int add_table(tsl_db *db, tsl_diag *diag) { return db_exec(db, remeasured_sql, diag); }

int db_remeasure_migrate(tsl_db *db, tsl_diag *diag) {
  return db_step_schema(db, 3, add_table, diag);
}

int tsl_db_set_remeasured(tsl_db *db, const tsl_db_remeasured *r, tsl_diag *diag) {
  if (!r || r->rounds < 1 || !(r->min_s >= 0) || !(r->median_s >= r->min_s) ||
      !(r->max_s >= r->median_s))
    return tsl_diag_set(diag, TSL_EINVALID, "%s: a re-measurement needs at least one round "
                        "and 0 <= min_s <= median_s <= max_s", db->path);
  sqlite3_stmt *st;
  int rc = db_prepare(db, "INSERT OR REPLACE INTO remeasured (record_id, median_s, min_s, "
                      "max_s, rounds, timestamp) SELECT ?1, ?2, ?3, ?4, ?5, ?6 "
                      "WHERE EXISTS (SELECT 1 FROM records WHERE id = ?1 AND status = 0)",
                      &st, diag);
  if (rc)
    return rc;
  sqlite3_bind_int64(st, 1, r->record_id);
  sqlite3_bind_double(st, 2, r->median_s);
  sqlite3_bind_double(st, 3, r->min_s);
  sqlite3_bind_double(st, 4, r->max_s);
  sqlite3_bind_int64(st, 5, r->rounds);
  sqlite3_bind_int64(st, 6, r->timestamp);
  if (db_step_retry(db, st) != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot store a re-measurement");
  else if (sqlite3_changes(db->h) == 0)
    rc = tsl_diag_set(diag, TSL_ENOTFOUND, "%s: no successful record %lld to re-measure",
                      db->path, (long long)r->record_id);
  sqlite3_finalize(st);
  return rc;
}

/* A database of schema version 3 opened read-only has no re-measurements:
 * none, rather than an error. 1 / 0, or a status (negative). */
static int has_table(tsl_db *db, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                      "name = 'remeasured'", &st, diag);
  if (rc)
    return rc;
  int n = db_step_retry(db, st) == SQLITE_ROW ? (int)sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return n < 0 ? db_fail(db, diag, TSL_EIO, "cannot read the schema") : n > 0;
}

static void from_row(sqlite3_stmt *st, int at, tsl_db_remeasured *out) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  out->record_id = sqlite3_column_int64(st, at);
  out->median_s = sqlite3_column_double(st, at + 1);
  out->min_s = sqlite3_column_double(st, at + 2);
  out->max_s = sqlite3_column_double(st, at + 3);
  out->rounds = (uint32_t)sqlite3_column_int64(st, at + 4);
  out->timestamp = sqlite3_column_int64(st, at + 5);
}

int tsl_db_get_remeasured(tsl_db *db, int64_t record_id, tsl_db_remeasured *out,
                          tsl_diag *diag) {
  int has = has_table(db, diag);
  if (has <= 0)
    return has < 0 ? has : TSL_ENOTFOUND;
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT record_id, median_s, min_s, max_s, rounds, timestamp "
                      "FROM remeasured WHERE record_id = ?1", &st, diag);
  if (rc)
    return rc;
  sqlite3_bind_int64(st, 1, record_id);
  int s = db_step_retry(db, st);
  if (s == SQLITE_ROW)
    from_row(st, 0, out);
  else
    rc = s == SQLITE_DONE ? TSL_ENOTFOUND
                          : db_fail(db, diag, TSL_EIO, "cannot read a re-measurement");
  sqlite3_finalize(st);
  return rc;
}

int tsl_db_best_remeasured(tsl_db *db, int64_t workload_id, const char *target,
                           tsl_db_record_fn fn, void *user_data, tsl_db_remeasured *out,
                           tsl_diag *diag) {
  int has = has_table(db, diag);
  if (has <= 0)
    return has < 0 ? has : TSL_ENOTFOUND;
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT " DB_RECORD_COLUMNS_OF("r") ", m.record_id, m.median_s, "
                      "m.min_s, m.max_s, m.rounds, m.timestamp FROM remeasured m JOIN records r "
                      "ON r.id = m.record_id WHERE r.workload_id = ?1 AND (?2 IS NULL OR "
                      "r.target = ?2) AND r.status = 0 ORDER BY m.median_s, r.id LIMIT 1",
                      &st, diag);
  if (rc)
    return rc;
  sqlite3_bind_int64(st, 1, workload_id);
  if (target)
    sqlite3_bind_text(st, 2, target, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, 2);
  int s = db_step_retry(db, st);
  if (s == SQLITE_ROW) {
    tsl_db_record rec;
    db_record_from_row(st, &rec);
    from_row(st, DB_RECORD_N_COLUMNS, out);
    rc = fn ? fn(user_data, &rec) : TSL_OK;
  } else {
    rc = s == SQLITE_DONE ? TSL_ENOTFOUND
                          : db_fail(db, diag, TSL_EIO, "cannot read the re-measurements");
  }
  sqlite3_finalize(st);
  return rc;
}
