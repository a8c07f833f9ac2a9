/*
 * core/db/db_counts.c — schema version 3: the number of records of each
 * (workload, target), kept in `record_counts` by triggers on `records`, so
 * that a claim reads the budget spent with one primary-key lookup instead
 * of counting records. A database of version 2 gets the table, the triggers
 * and its counts in one transaction.
 */
#include "db_internal.h"

static const char *const counts_sql =
    "CREATE TABLE IF NOT EXISTS record_counts ("
    "  workload_id INTEGER NOT NULL,"
    "  target TEXT NOT NULL,"
    "  n INTEGER NOT NULL,"
    "  PRIMARY KEY (workload_id, target));"
    "CREATE TRIGGER IF NOT EXISTS records_counted AFTER INSERT ON records BEGIN"
    "  INSERT INTO record_counts (workload_id, target, n)"
    "    VALUES (NEW.workload_id, NEW.target, 1)"
    "    ON CONFLICT (workload_id, target) DO UPDATE SET n = n + 1;"
    "END;"
    "CREATE TRIGGER IF NOT EXISTS records_uncounted AFTER DELETE ON records BEGIN"
    "  UPDATE record_counts SET n = n - 1"
    "    WHERE workload_id = OLD.workload_id AND target = OLD.target;"
    "END;"
    "DELETE FROM record_counts;"
    "INSERT INTO record_counts (workload_id, target, n)"
    "  SELECT workload_id, target, count(*) FROM records GROUP BY workload_id, target;"
    "PRAGMA user_version = 3;";

static int add_counts(tsl_db *db, tsl_diag *diag) { return db_exec(db, counts_sql, diag); }

int db_counts_migrate(tsl_db *db, tsl_diag *diag) {
  return db_step_schema(db, 2, add_counts, diag);
}

int db_records_of(tsl_db *db, int64_t workload_id, const char *target, int64_t *n,
                  tsl_diag *diag) {
  *n = 0;
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT n FROM record_counts WHERE workload_id = ?1 AND target = ?2",
                      &st, diag);
  if (rc)
    return rc;
  sqlite3_bind_int64(st, 1, workload_id);
  sqlite3_bind_text(st, 2, target ? target : "", -1, SQLITE_STATIC);
  int s = db_step_retry(db, st);
  if (s == SQLITE_ROW)
    *n = sqlite3_column_int64(st, 0);
  else if (s != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot read the record counts");
  sqlite3_finalize(st);
  return rc;
}
