/*
 * tests/db/db_raw.h — a database file read and written around tessel, with
 * a plain SQLite connection of its own (what another program would see).
 */
#ifndef TESSEL_TESTS_DB_RAW_H
#define TESSEL_TESTS_DB_RAW_H

#include <sqlite3.h>

#include "tap.h"

/* Run `sql` (several statements allowed); a failure is a TAP comment. */
static inline void raw_exec(const char *path, const char *sql) {
  sqlite3 *raw;
  sqlite3_open(path, &raw);
  sqlite3_busy_timeout(raw, 5000);
  if (sqlite3_exec(raw, sql, NULL, NULL, NULL) != SQLITE_OK)
    tap_diag("raw_exec: %s", sqlite3_errmsg(raw));
  sqlite3_close(raw);
}

/* The first column of the first row of `sql`, or -1. */
static inline long long raw_int(const char *path, const char *sql) {
  sqlite3 *raw;
  sqlite3_stmt *st = NULL;
  long long v = -1;
  sqlite3_open(path, &raw);
  if (sqlite3_prepare_v2(raw, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(raw);
  return v;
}

#endif
