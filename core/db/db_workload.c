/*
 * core/db/db_workload.c — workloads: a prim_func keyed by its structural
 * hash (stored as 16 hex digits) and its canonical TVMScript; lookup,
 * insertion and enumeration.
 */
#include "db_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tessel/analysis.h"
#include "tessel/script.h"

void db_hash_hex(uint64_t hash, char buf[17]) {
  snprintf(buf, 17, "%016" PRIx64, hash);
}

int db_hash_parse(const char *s, uint64_t *out) {
  uint64_t v = 0;
  int n = 0;
  for (; s[n]; n++) {
    char c = s[n];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0 || n >= 16)
      return -1;
    v = v << 4 | (uint64_t)d;
  }
  if (n != 16)
    return -1;
  *out = v;
  return 0;
}

int db_workload_lookup(tsl_db *db, uint64_t hash, const char *name,
                       const char *script, double flops, int64_t *id,
                       int *added, tsl_diag *diag) {
  char hex[17];
  db_hash_hex(hash, hex);
  if (added)
    *added = 0;
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT id FROM workloads WHERE hash = ?1 AND script = ?2 "
                          "ORDER BY id LIMIT 1", &st, diag);
  if (rc != TSL_OK)
    return rc;
  sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, script, -1, SQLITE_STATIC);
  int s = sqlite3_step(st);
  if (s == SQLITE_ROW) {
    *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    /* a database written before integer operations were counted holds 0
     * for an int8 matmul: the count of this version replaces it */
    if (db->readonly || !(flops > 0))
      return TSL_OK;
    rc = db_prepare(db, "UPDATE workloads SET flops = ?1 WHERE id = ?2 AND flops != ?1", &st,
                    diag);
    if (rc != TSL_OK)
      return rc;
    sqlite3_bind_double(st, 1, flops);
    sqlite3_bind_int64(st, 2, *id);
    s = sqlite3_step(st);
    sqlite3_finalize(st);
    return s == SQLITE_DONE ? TSL_OK : db_fail(db, diag, TSL_EIO, "cannot update a workload");
  }
  sqlite3_finalize(st);
  if (s != SQLITE_DONE)
    return db_fail(db, diag, TSL_EIO, "cannot look up a workload");
  if (db->readonly)
    return tsl_diag_set(diag, TSL_ENOTFOUND,
                        "%s: no workload '%s' (hash %s) in this database",
                        db->path, name, hex);
  rc = db_prepare(db, "INSERT INTO workloads (hash, name, script, flops) "
                      "VALUES (?1, ?2, ?3, ?4)", &st, diag);
  if (rc != TSL_OK)
    return rc;
  sqlite3_bind_text(st, 1, hex, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, script, -1, SQLITE_STATIC);
  sqlite3_bind_double(st, 4, flops > 0 ? flops : 0);
  s = sqlite3_step(st);
  sqlite3_finalize(st);
  if (s != SQLITE_DONE)
    return db_fail(db, diag, TSL_EIO, "cannot add a workload");
  *id = sqlite3_last_insert_rowid(db->h);
  if (added)
    *added = 1;
  return TSL_OK;
}

int tsl_db_workload(tsl_db *db, const tsl_func *f, double flops, int64_t *id,
                    tsl_diag *diag) {
  char *script = tsl_print_func(f);
  if (!script)
    return tsl_diag_set(diag, TSL_ENOMEM, "%s: out of memory", db->path);
  /* the lookup and the insert in one write transaction: runs starting
   * together on one database must find one workload, not add one each */
  int own_tx = !db->readonly && sqlite3_get_autocommit(db->h);
  int rc = own_tx ? db_exec(db, "BEGIN IMMEDIATE", diag) : TSL_OK;
  if (rc == TSL_OK)
    rc = db_workload_lookup(db, tsl_func_hash(f), f->name, script, flops, id, NULL, diag);
  if (own_tx) {
    if (rc == TSL_OK)
      rc = db_exec(db, "COMMIT", diag);
    if (rc != TSL_OK)
      sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  }
  free(script);
  return rc;
}

int tsl_db_each_workload(tsl_db *db, tsl_db_workload_fn fn, void *user_data,
                         tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, "SELECT id, hash, name, script, flops FROM workloads "
                          "ORDER BY id", &st, diag);
  if (rc != TSL_OK)
    return rc;
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    tsl_db_workload_info w = {sizeof w, 0, 0, NULL, NULL, 0};
    w.id = sqlite3_column_int64(st, 0);
    if (db_hash_parse(db_text(st, 1), &w.hash) != 0)
      w.hash = 0;
    w.name = db_text(st, 2);
    w.script = db_text(st, 3);
    w.flops = sqlite3_column_double(st, 4);
    rc = fn(user_data, &w);
    if (rc != 0)
      break;
  }
  if (rc == 0 && s != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot read the workloads");
  sqlite3_finalize(st);
  return rc;
}
