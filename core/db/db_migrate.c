/*
 * core/db/db_migrate.c — schema version 1 to 2: candidate keys gained the
 * digest of the trace's structure (tsl_trace_key), so every record's key is
 * computed again from its trace, in one transaction, and the claims (keys of
 * running processes, which a tessel of version 1 made) are dropped.
 */
#include "db_internal.h"

#include "tessel/container.h"
#include "tessel/schedule.h"
#include "tessel/search.h"

#include <stdlib.h>
#include <string.h>

typedef struct new_key {
  int64_t id;
  char *key;
} new_key;

/* `out`: an initialised tsl_vec of new_key. */
static int collect(tsl_db *db, tsl_vec *out, tsl_diag *diag) {
  sqlite3_stmt *st = NULL;
  int rc = db_prepare(db, "SELECT id, trace_json FROM records", &st, diag);
  if (rc)
    return rc;
  tsl_ctx *ctx = tsl_ctx_new();
  int s;
  while (ctx && (s = db_step_retry(db, st)) == SQLITE_ROW) {
    tsl_trace *t = NULL;
    tsl_diag d;
    if (tsl_trace_from_json(ctx, db_text(st, 1), &t, &d))
      continue; /* a trace that does not read back keeps its key */
    const char *k = tsl_trace_key(t);
    char *key = k ? strdup(k) : NULL;
    tsl_trace_free(t);
    if (!key) {
      rc = tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", db->path);
      break;
    }
    *(new_key *)tsl_vec_push(out) = (new_key){sqlite3_column_int64(st, 0), key};
  }
  if (!ctx)
    rc = tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", db->path);
  else if (!rc && s != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot read the records to update their keys");
  sqlite3_finalize(st);
  tsl_ctx_free(ctx);
  return rc;
}

static int rewrite(tsl_db *db, const tsl_vec *keys, tsl_diag *diag) {
  const new_key *v = TSL_VEC_DATA(keys, const new_key);
  sqlite3_stmt *st = NULL;
  int rc = db_prepare(db, "UPDATE records SET decisions = ?1 WHERE id = ?2", &st, diag);
  for (uint32_t i = 0; !rc && i < keys->len; i++) {
    sqlite3_bind_text(st, 1, v[i].key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, v[i].id);
    if (db_step_retry(db, st) != SQLITE_DONE)
      rc = db_fail(db, diag, TSL_EIO, "cannot update a record's key");
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

/* Version 1 to 2, inside db_step_schema's transaction. */
static int keys_with_digest(tsl_db *db, tsl_diag *diag) {
  tsl_vec keys; /* new_key */
  tsl_vec_init(&keys, sizeof(new_key), NULL);
  int rc = collect(db, &keys, diag);
  if (!rc)
    rc = rewrite(db, &keys, diag);
  if (!rc)
    rc = db_exec(db, "DELETE FROM claims", diag);
  if (!rc)
    rc = db_exec(db, "PRAGMA user_version = 2", diag);
  for (uint32_t i = 0; i < keys.len; i++)
    free(TSL_VEC_AT(&keys, new_key, i).key);
  tsl_vec_free(&keys);
  return rc;
}

int db_migrate(tsl_db *db, tsl_diag *diag) {
  return db_step_schema(db, 1, keys_with_digest, diag);
}

int db_step_schema(tsl_db *db, int64_t from, int (*step)(tsl_db *, tsl_diag *),
                   tsl_diag *diag) {
  int rc = db_exec_retry(db, "BEGIN IMMEDIATE", diag);
  if (rc)
    return rc;
  int64_t ver = 0;
  sqlite3_stmt *st = NULL;
  rc = db_prepare(db, "PRAGMA user_version", &st, diag);
  if (!rc && db_step_retry(db, st) == SQLITE_ROW)
    ver = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  if (!rc && ver == from) /* another process may have done it meanwhile */
    rc = step(db, diag);
  if (!rc)
    return db_exec_retry(db, "COMMIT", diag);
  sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}
