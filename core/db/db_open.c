/*
 * core/db/db_open.c — opening a tuning database: create the folder and the
 * file, recognise a tessel database (PRAGMA application_id + user_version)
 * before writing anything, create the schema in one transaction, and set
 * the connection up (WAL, synchronous=NORMAL, busy timeout, foreign keys).
 */
#include "db_internal.h"
#include "base_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The busy timeout: how long a connection waits for another one, and how
 * long setup retries steps that SQLite answers BUSY without waiting (the
 * switch to WAL, WAL recovery). */
#define DB_BUSY_MS 5000

static const char *const schema_sql =
    "CREATE TABLE workloads ("
    "  id INTEGER PRIMARY KEY,"
    "  hash TEXT NOT NULL,"   /* 16 hex digits of tsl_func_hash */
    "  name TEXT NOT NULL,"
    "  script TEXT NOT NULL," /* canonical TVMScript */
    "  flops REAL NOT NULL DEFAULT 0);"
    "CREATE INDEX workloads_hash ON workloads(hash);"
    "CREATE TABLE records ("
    "  id INTEGER PRIMARY KEY,"
    "  workload_id INTEGER NOT NULL REFERENCES workloads(id),"
    "  target TEXT NOT NULL,"
    "  trace_json TEXT NOT NULL,"
    "  decisions TEXT NOT NULL,"
    "  status INTEGER NOT NULL,"
    "  error TEXT,"
    "  latency_s REAL NOT NULL,"
    "  times_json TEXT NOT NULL,"
    "  build_s REAL NOT NULL,"
    "  version TEXT NOT NULL,"
    "  timestamp INTEGER NOT NULL);"
    "CREATE INDEX records_lookup ON records(workload_id, target, decisions);"
    "CREATE INDEX records_best ON records(workload_id, status, latency_s, id);";

/* Claims of running processes (see db_claim.c); created in every database
 * opened for writing, old ones included. */
static const char *const claims_sql =
    "CREATE TABLE IF NOT EXISTS claims ("
    "  workload_id INTEGER NOT NULL,"
    "  target TEXT NOT NULL,"
    "  decisions TEXT NOT NULL,"
    "  pid INTEGER NOT NULL,"
    "  claimed_at INTEGER NOT NULL,"
    "  PRIMARY KEY (workload_id, target, decisions))";

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int is_busy(int code) {
  code &= 0xff;
  return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

int db_step_retry(tsl_db *db, sqlite3_stmt *st) {
  int64_t deadline = now_ms() + DB_BUSY_MS;
  for (;;) {
    int s = sqlite3_step(st);
    if (!is_busy(s) || now_ms() >= deadline)
      return s;
    sqlite3_reset(st);
    struct timespec pause = {0, (2 + getpid() % 5) * 1000000L};
    nanosleep(&pause, NULL);
    (void)db;
  }
}

/* sqlite3_exec with db_step_retry for each statement of `sql` (one). */
int db_exec_retry(tsl_db *db, const char *sql, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, sql, &st, diag);
  if (rc != TSL_OK)
    return rc;
  int s = db_step_retry(db, st);
  if (s != SQLITE_DONE && s != SQLITE_ROW)
    rc = db_fail(db, diag, TSL_EIO, sql);
  sqlite3_finalize(st);
  return rc;
}

int db_fail(tsl_db *db, tsl_diag *diag, int status, const char *what) {
  db->last_err = db->h ? sqlite3_errcode(db->h) : SQLITE_NOMEM;
  db->last_ext_err = db->h ? sqlite3_extended_errcode(db->h) : SQLITE_NOMEM;
  return tsl_diag_set(diag, status, "%s: %s: %s", db->path, what,
                      db->h ? sqlite3_errmsg(db->h) : "out of memory");
}

int db_prepare(tsl_db *db, const char *sql, sqlite3_stmt **st, tsl_diag *diag) {
  if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK) {
    *st = NULL;
    return db_fail(db, diag, TSL_EIO, "cannot prepare a statement");
  }
  return TSL_OK;
}

int db_exec(tsl_db *db, const char *sql, tsl_diag *diag) {
  if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
    return db_fail(db, diag, TSL_EIO, sql);
  return TSL_OK;
}

const char *db_text(sqlite3_stmt *st, int col) {
  const unsigned char *s = sqlite3_column_text(st, col);
  return s ? (const char *)s : "";
}

/* mkdir -p of the folder holding `path`. */
static int make_parent(const char *path, tsl_diag *diag) {
  char *dir = strdup(path);
  if (!dir)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
  char *slash = strrchr(dir, '/');
  int rc = TSL_OK;
  if (slash && slash != dir) {
    *slash = '\0';
    tsl_diag sub = {0};
    if ((rc = tsl_mkdir_p(dir, &sub)))
      tsl_diag_set(diag, rc, "%s: %s", path, sub.text);
  }
  free(dir);
  return rc;
}

/* One integer from a PRAGMA or SELECT without parameters. */
static int query_int(tsl_db *db, const char *sql, int64_t *out, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, sql, &st, diag);
  if (rc == TSL_OK) {
    int s = db_step_retry(db, st);
    if (s == SQLITE_ROW)
      *out = sqlite3_column_int64(st, 0);
    else
      rc = db_fail(db, diag, TSL_EIO, "cannot read the database header");
  }
  if (rc != TSL_OK && sqlite3_errcode(db->h) == SQLITE_NOTADB)
    rc = tsl_diag_set(diag, TSL_EINVALID,
                      "%s: not a tessel database (not an SQLite file: %s); "
                      "nothing was written to it",
                      db->path, sqlite3_errmsg(db->h));
  sqlite3_finalize(st);
  return rc;
}

/* 1: a tessel database of a known schema; 0: an empty file or database
 * (no tables); negative: an error naming what the file is. */
static int classify(tsl_db *db, tsl_diag *diag) {
  int64_t app = 0, ver = 0, objs = 0;
  /* one read transaction: a consistent view while another process may be
   * creating the schema (outside one, create_schema's BEGIN IMMEDIATE) */
  int own_tx = sqlite3_get_autocommit(db->h);
  int rc = own_tx ? db_exec_retry(db, "BEGIN", diag) : TSL_OK;
  if (rc == TSL_OK)
    rc = query_int(db, "PRAGMA application_id", &app, diag);
  if (rc == TSL_OK)
    rc = query_int(db, "PRAGMA user_version", &ver, diag);
  if (rc == TSL_OK)
    rc = query_int(db, "SELECT count(*) FROM sqlite_master", &objs, diag);
  if (own_tx)
    sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
  if (rc != TSL_OK)
    return rc;
  if (app == DB_APPLICATION_ID) {
    if (ver > DB_SCHEMA_VERSION)
      return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                          "%s: the database has schema version %lld, newer than "
                          "version %d that this tessel reads; open it with the "
                          "tessel that wrote it",
                          db->path, (long long)ver, DB_SCHEMA_VERSION);
    if (ver >= 1)
      return 1;
  }
  if (app == 0 && objs == 0)
    return 0;
  return tsl_diag_set(diag, TSL_EINVALID,
                      "%s: not a tessel database (an SQLite file without the "
                      "tessel schema: application_id 0x%llx, user_version %lld, "
                      "%lld schema objects); nothing was written to it",
                      db->path, (unsigned long long)app, (long long)ver,
                      (long long)objs);
}

static int create_schema(tsl_db *db, tsl_diag *diag) {
  int rc = db_exec_retry(db, "BEGIN IMMEDIATE", diag);
  if (rc != TSL_OK)
    return rc;
  /* another process may have created it since classify() */
  int kind = classify(db, diag);
  if (kind == 0) {
    rc = db_exec(db, schema_sql, diag);
    if (rc == TSL_OK)
      rc = db_exec(db, "PRAGMA application_id = 1414745156", diag);
    if (rc == TSL_OK)
      rc = db_exec(db, "PRAGMA user_version = 2", diag);
  } else if (kind < 0) {
    rc = kind;
  }
  if (rc == TSL_OK)
    return db_exec_retry(db, "COMMIT", diag);
  sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* The message of a database this process cannot write, opened for writing. */
static int readonly_fail(tsl_db *db, tsl_diag *diag) {
  return tsl_diag_set(diag, TSL_EIO,
                      "%s: the database is read-only for this process (the "
                      "file or its folder cannot be written: %s); tuning and "
                      "import need a writable database\nnote: read-only "
                      "commands work on it: tessel db stats, tessel db export, "
                      "tessel best, tessel report",
                      db->path, sqlite3_errcode(db->h) == SQLITE_OK
                                    ? "permission denied"
                                    : sqlite3_errmsg(db->h));
}

static int is_readonly_error(tsl_db *db) {
  int e = sqlite3_errcode(db->h);
  if (e == SQLITE_OK || e == SQLITE_ERROR)
    e = db->last_err;
  return e == SQLITE_READONLY || e == SQLITE_CANTOPEN || e == SQLITE_PERM ||
         sqlite3_db_readonly(db->h, "main") == 1;
}

static int setup(tsl_db *db, uint32_t mode, tsl_diag *diag) {
  sqlite3_busy_timeout(db->h, DB_BUSY_MS);
  if (mode != TSL_DB_READONLY && sqlite3_db_readonly(db->h, "main") == 1)
    return readonly_fail(db, diag);
  int kind = classify(db, diag);
  if (kind < 0)
    return kind;
  if (mode == TSL_DB_READONLY) {
    if (kind == 0)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "%s: not a tessel database (the file is empty); "
                          "open it for writing to create one",
                          db->path);
    return db_exec(db, "PRAGMA query_only = 1", diag);
  }
  sqlite3_stmt *st;
  int rc = db_prepare(db, "PRAGMA journal_mode = WAL", &st, diag);
  if (rc != TSL_OK)
    return rc;
  /* the busy handler does not cover this switch: retry it ourselves */
  if (db_step_retry(db, st) != SQLITE_ROW)
    rc = is_readonly_error(db) ? readonly_fail(db, diag)
                               : db_fail(db, diag, TSL_EIO,
                                         "cannot switch to the WAL journal");
  else if (strcmp(db_text(st, 0), "wal") != 0)
    rc = tsl_diag_set(diag, TSL_EIO, "%s: cannot switch to the WAL journal "
                      "(journal mode stays '%s')", db->path, db_text(st, 0));
  sqlite3_finalize(st);
  if (rc == TSL_OK)
    rc = db_exec(db, "PRAGMA synchronous = NORMAL", diag);
  if (rc == TSL_OK)
    rc = db_exec(db, "PRAGMA foreign_keys = ON", diag);
  if (rc == TSL_OK && kind == 0)
    rc = create_schema(db, diag);
  if (rc == TSL_OK && (rc = db_exec_retry(db, claims_sql, diag)) != TSL_OK &&
      is_readonly_error(db))
    rc = readonly_fail(db, diag);
  if (rc == TSL_OK && kind == 1)
    rc = db_migrate(db, diag);
  if (rc == TSL_OK) /* a new database is made at version 2, then stepped up */
    rc = db_counts_migrate(db, diag);
  if (rc == TSL_OK)
    rc = db_remeasure_migrate(db, diag);
  return rc;
}

/* A read-only open failed because the -shm/-wal files cannot be made. */
static int cannot_write_beside(tsl_db *db) {
  return db->last_err == SQLITE_READONLY || db->last_err == SQLITE_CANTOPEN;
}

/* Read-only open of a WAL database whose folder this process cannot write
 * (no -shm file can be made): SQLite's immutable mode reads the main file
 * alone. Only used when the ordinary read-only open failed that way. */
static int reopen_immutable(tsl_db *db, tsl_diag *diag) {
  char *uri = sqlite3_mprintf("file:%s?immutable=1", db->path);
  if (!uri)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", db->path);
  /* a path with URI metacharacters cannot be given this way */
  int rc = strpbrk(db->path, "?#%") ? TSL_EIO : TSL_OK;
  if (rc == TSL_OK) {
    sqlite3_close_v2(db->h);
    db->h = NULL;
    if (sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                        NULL) != SQLITE_OK)
      rc = db_fail(db, diag, TSL_EIO, "cannot open the database");
    else
      rc = setup(db, TSL_DB_READONLY, diag);
  }
  sqlite3_free(uri);
  return rc;
}

int tsl_db_open(const char *path, uint32_t mode, tsl_db **out, tsl_diag *diag) {
  *out = NULL;
  if (!path || !*path)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "database path is empty; give a file name such as "
                        "tune/tuning.db");
  if (mode != TSL_DB_READONLY && mode != TSL_DB_CREATE)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "%s: unknown open mode %u (valid: TSL_DB_READONLY, "
                        "TSL_DB_CREATE)", path, mode);
  struct stat sb;
  if (stat(path, &sb) == 0) {
    if (S_ISDIR(sb.st_mode))
      return tsl_diag_set(diag, TSL_EINVALID,
                          "%s: is a folder; a database is a file", path);
  } else if (mode == TSL_DB_READONLY) {
    return tsl_diag_set(diag, TSL_ENOTFOUND, "%s: no such database: %s", path,
                        strerror(errno));
  } else {
    int rc = make_parent(path, diag);
    if (rc != TSL_OK)
      return rc;
  }
  tsl_db *db = calloc(1, sizeof *db);
  if (!db || !(db->path = strdup(path))) {
    free(db);
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", path);
  }
  db->readonly = mode == TSL_DB_READONLY;
  int flags = db->readonly ? SQLITE_OPEN_READONLY
                           : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc;
  if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK)
    rc = db_fail(db, diag, TSL_EIO, "cannot open the database");
  else
    rc = setup(db, mode, diag);
  if (rc != TSL_OK && db->readonly && db->h && db->last_ext_err == SQLITE_READONLY_ROLLBACK &&
      access(path, W_OK) == 0) {
    /* a writer was killed in a transaction and left a hot journal, which a
     * read-only connection may not roll back: roll it back as the next
     * writer's open would (the committed contents stay), then read */
    sqlite3_close_v2(db->h);
    db->h = NULL;
    sqlite3 *w = NULL;
    if (sqlite3_open_v2(path, &w, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
      sqlite3_busy_timeout(w, DB_BUSY_MS);
      sqlite3_exec(w, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    }
    sqlite3_close_v2(w);
    if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK)
      rc = db_fail(db, diag, TSL_EIO, "cannot open the database");
    else
      rc = setup(db, mode, diag);
  }
  if (rc != TSL_OK && db->readonly && db->h && cannot_write_beside(db)) {
    tsl_diag *first = diag ? malloc(sizeof *first) : NULL;
    if (first)
      *first = *diag;
    if (reopen_immutable(db, diag) == TSL_OK)
      rc = TSL_OK;
    else if (first)
      *diag = *first;
    free(first);
  }
  if (rc != TSL_OK) {
    tsl_db_close(db);
    return rc;
  }
  *out = db;
  return TSL_OK;
}

void tsl_db_close(tsl_db *db) {
  if (!db)
    return;
  if (db->h && !db->readonly)
    db_drop_own_claims(db);
  sqlite3_close_v2(db->h);
  free(db->path);
  free(db);
}

const char *tsl_db_path(const tsl_db *db) { return db ? db->path : NULL; }
