/*
 * core/db/db_internal.h — what the files of core/db share: the handle, the
 * schema constants and small SQLite helpers. Not installed.
 */
#ifndef TESSEL_DB_INTERNAL_H
#define TESSEL_DB_INTERNAL_H

#include <sqlite3.h>

#include "tessel/db.h"

/* PRAGMA application_id of a tessel database ("TSLD") and the schema
 * version kept in PRAGMA user_version. */
#define DB_APPLICATION_ID 0x54534c44
#define DB_SCHEMA_VERSION 4

struct tsl_db {
  sqlite3 *h;
  char *path;
  int readonly;
  int last_err; /* SQLite's primary error code at the last db_fail */
  int last_ext_err; /* ... and its extended code */
};

/* "PATH: WHAT: <sqlite3_errmsg>" into diag; returns `status`. */
int db_fail(tsl_db *db, tsl_diag *diag, int status, const char *what);
/* sqlite3_prepare_v2 with db_fail on error (TSL_EIO). */
int db_prepare(tsl_db *db, const char *sql, sqlite3_stmt **st, tsl_diag *diag);
/* Run SQL without parameters (BEGIN, COMMIT, ...). */
int db_exec(tsl_db *db, const char *sql, tsl_diag *diag);
/* The same, retried while SQLite answers BUSY without waiting (one
 * statement). */
int db_exec_retry(tsl_db *db, const char *sql, tsl_diag *diag);
/* Bring a database of schema version 1 (keys without the structure
 * digest) to version 2, in one transaction; a database
 * already there is left alone (db_migrate.c). */
int db_migrate(tsl_db *db, tsl_diag *diag);
/* One schema step in one BEGIN IMMEDIATE transaction: `step` runs when the
 * database's user_version is `from` (another process may have taken the
 * step meanwhile), and sets the next version itself (db_migrate.c). */
int db_step_schema(tsl_db *db, int64_t from, int (*step)(tsl_db *, tsl_diag *),
                   tsl_diag *diag);
/* Schema version 2 to 3: the record counts (db_counts.c); a database of
 * version 3 is left alone. */
int db_counts_migrate(tsl_db *db, tsl_diag *diag);
/* Schema version 3 to 4: the re-measurements (db_remeasure.c); a
 * database of version 4 is left alone. */
int db_remeasure_migrate(tsl_db *db, tsl_diag *diag);
/* The records of workload and target, from the counts (one lookup). */
int db_records_of(tsl_db *db, int64_t workload_id, const char *target, int64_t *n,
                  tsl_diag *diag);
/* sqlite3_step, retried (short sleeps) while SQLite answers BUSY/LOCKED
 * without waiting, for up to the busy timeout. */
int db_step_retry(tsl_db *db, sqlite3_stmt *st);
/* DELETE every claim of this process (tsl_db_close; errors ignored). */
void db_drop_own_claims(tsl_db *db);
/* DELETE this process's claim of rec's (workload, target, decisions). */
int db_drop_claim(tsl_db *db, const tsl_db_record *rec, tsl_diag *diag);
/* Text column as a C string ("" for NULL). */
const char *db_text(sqlite3_stmt *st, int col);

/* A workload's id by hash and script; added (with name and flops) when
 * missing unless the database is read-only (then TSL_ENOTFOUND). *added is
 * set to 1 when it was created (may be NULL). */
int db_workload_lookup(tsl_db *db, uint64_t hash, const char *name,
                       const char *script, double flops, int64_t *id,
                       int *added, tsl_diag *diag);
/* The hash as 16 lowercase hex digits (buf holds 17 bytes) and back. */
void db_hash_hex(uint64_t hash, char buf[17]);
int db_hash_parse(const char *s, uint64_t *out);

/* Record rows: the SELECT list every reader uses, and the row decoder.
 * `times` receives the parsed times (record's strings point into `st`). */
#define DB_RECORD_COLUMNS                                                      \
  "id, workload_id, target, trace_json, decisions, status, error, "           \
  "latency_s, times_json, build_s, version, timestamp"
/* The same columns of the records table under alias T, and their count. */
#define DB_RECORD_COLUMNS_OF(T)                                                \
  T ".id, " T ".workload_id, " T ".target, " T ".trace_json, " T ".decisions, " \
  T ".status, " T ".error, " T ".latency_s, " T ".times_json, " T ".build_s, "  \
  T ".version, " T ".timestamp"
#define DB_RECORD_N_COLUMNS 12
void db_record_from_row(sqlite3_stmt *st, tsl_db_record *rec);
/* times_s as a JSON array text (heap) / parsed back (at most
 * TSL_DB_MAX_TIMES; returns -1 when `s` is not an array of numbers). */
char *db_times_to_json(const double *t, uint32_t n);
int db_times_from_json(const char *s, double *t, uint32_t *n);
/* INSERT of one record (no transaction handling); sets rec->id. */
int db_insert_record(tsl_db *db, tsl_db_record *rec, tsl_diag *diag);

#endif
