/*
 * core/db/db_claim.c — claims of concurrent runs: which process is building
 * and measuring which (workload, target, decisions). A claim is a row of
 * `claims` holding the pid; it is live while that process exists (one host).
 * Claiming a batch is one BEGIN IMMEDIATE transaction, so two processes
 * cannot both win a key; a claim of a process that is gone is taken over.
 * The budget spent is read once per transaction: the record count of
 * (workload, target) (db_counts.c) plus the live claims.
 */
#include "db_internal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* kill(pid, 0) succeeds, or fails only for lack of permission. */
static int pid_alive(int64_t pid) {
  if (pid <= 0 || pid != (int64_t)(pid_t)pid)
    return 0;
  return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static int need_writable(tsl_db *db, const char *what, tsl_diag *diag) {
  if (!db->readonly)
    return TSL_OK;
  return tsl_diag_set(diag, TSL_EINVALID,
                      "%s: the database was opened read-only; %s needs one "
                      "opened with TSL_DB_CREATE", db->path, what);
}

static void bind_key(sqlite3_stmt *st, int64_t workload_id, const char *target,
                     const char *decisions) {
  sqlite3_bind_int64(st, 1, workload_id);
  sqlite3_bind_text(st, 2, target ? target : "", -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, decisions ? decisions : "", -1, SQLITE_STATIC);
}

/* One step of a keyed statement: 1 row, 0 done, negative error. The first
 * column of a row goes to *col0 (may be NULL). */
static int step_key(tsl_db *db, const char *sql, int64_t workload_id,
                    const char *target, const char *decisions, int64_t extra,
                    int64_t *col0, tsl_diag *diag) {
  sqlite3_stmt *st;
  int rc = db_prepare(db, sql, &st, diag);
  if (rc != TSL_OK)
    return rc;
  bind_key(st, workload_id, target, decisions);
  if (sqlite3_bind_parameter_count(st) >= 4)
    sqlite3_bind_int64(st, 4, extra);
  if (sqlite3_bind_parameter_count(st) >= 5)
    sqlite3_bind_int64(st, 5, (int64_t)time(NULL));
  int s = sqlite3_step(st);
  if (s == SQLITE_ROW) {
    if (col0)
      *col0 = sqlite3_column_int64(st, 0);
    rc = 1;
  } else if (s == SQLITE_DONE) {
    rc = 0;
  } else {
    rc = db_fail(db, diag, TSL_EIO, "cannot update the claims");
  }
  sqlite3_finalize(st);
  return rc;
}

/* Records of workload and target (their count, one lookup) plus their live
 * claims (any process). */
static int budget_spent(tsl_db *db, int64_t workload_id, const char *target,
                        int64_t *n, tsl_diag *diag) {
  int rc = db_records_of(db, workload_id, target, n, diag);
  sqlite3_stmt *st;
  if (rc != TSL_OK || (rc = db_prepare(db, "SELECT pid FROM claims WHERE workload_id = ?1 "
                                           "AND target = ?2", &st, diag)) != TSL_OK)
    return rc;
  sqlite3_bind_int64(st, 1, workload_id);
  sqlite3_bind_text(st, 2, target ? target : "", -1, SQLITE_STATIC);
  int s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW)
    *n += pid_alive(sqlite3_column_int64(st, 0));
  if (s != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot count the budget");
  sqlite3_finalize(st);
  return rc;
}

/* One key claimed inside the caller's transaction. *spent is the budget
 * spent, read when first needed (-1 before) and counted up by each claim. */
static int claim_one(tsl_db *db, int64_t workload_id, const char *target,
                     const char *decisions, int64_t budget, int64_t *spent,
                     int *claimed, tsl_diag *diag) {
  *claimed = 0;
  int measured = step_key(db, "SELECT 1 FROM records WHERE workload_id = ?1 "
                              "AND target = ?2 AND decisions = ?3 LIMIT 1",
                          workload_id, target, decisions, 0, NULL, diag);
  int64_t holder = 0, me = (int64_t)getpid();
  int held = measured == 0 ? step_key(db, "SELECT pid FROM claims WHERE "
                                          "workload_id = ?1 AND target = ?2 "
                                          "AND decisions = ?3",
                                      workload_id, target, decisions, 0,
                                      &holder, diag)
                           : 0;
  int rc = measured < 0 ? measured : held < 0 ? held : TSL_OK;
  if (rc != TSL_OK || measured)
    return rc;
  if (held && holder == me) {
    *claimed = 1; /* already ours */
    return TSL_OK;
  }
  if (held && pid_alive(holder))
    return TSL_OK;
  /* free, or its holder is gone: take it, if the budget allows */
  if (budget > 0 && *spent < 0 && (rc = budget_spent(db, workload_id, target, spent, diag)))
    return rc;
  if (budget > 0 && *spent >= budget) {
    *claimed = 2;
    return TSL_OK;
  }
  rc = step_key(db, "INSERT OR REPLACE INTO claims (workload_id, target, "
                    "decisions, pid, claimed_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                workload_id, target, decisions, me, NULL, diag);
  if (rc == 0) {
    *claimed = 1;
    *spent += *spent >= 0;
  }
  return rc;
}

int tsl_db_claim_batch(tsl_db *db, int64_t workload_id, const char *target, uint32_t n,
                       const char *const *decisions, int64_t budget, int *claimed,
                       tsl_diag *diag) {
  for (uint32_t i = 0; i < n; i++)
    claimed[i] = 0;
  int rc = need_writable(db, "claiming a candidate", diag);
  if (rc != TSL_OK || (rc = db_exec(db, "BEGIN IMMEDIATE", diag)) != TSL_OK)
    return rc;
  int64_t spent = -1;
  for (uint32_t i = 0; i < n && rc == TSL_OK; i++)
    rc = decisions[i] ? claim_one(db, workload_id, target, decisions[i], budget, &spent,
                                  &claimed[i], diag)
                      : TSL_OK;
  if (rc == TSL_OK)
    rc = db_exec(db, "COMMIT", diag);
  if (rc != TSL_OK) {
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    for (uint32_t i = 0; i < n; i++)
      claimed[i] = 0;
  }
  return rc;
}

int tsl_db_claim(tsl_db *db, int64_t workload_id, const char *target,
                 const char *decisions, int64_t budget, int *claimed,
                 tsl_diag *diag) {
  return tsl_db_claim_batch(db, workload_id, target, 1, &decisions, budget, claimed, diag);
}

int tsl_db_unclaim(tsl_db *db, int64_t workload_id, const char *target,
                   const char *decisions, tsl_diag *diag) {
  int rc = need_writable(db, "dropping a claim", diag);
  if (rc == TSL_OK)
    rc = step_key(db, "DELETE FROM claims WHERE workload_id = ?1 AND "
                      "target = ?2 AND decisions = ?3 AND pid = ?4",
                  workload_id, target, decisions, (int64_t)getpid(), NULL, diag);
  return rc < 0 ? rc : TSL_OK;
}

int db_drop_claim(tsl_db *db, const tsl_db_record *rec, tsl_diag *diag) {
  int rc = step_key(db, "DELETE FROM claims WHERE workload_id = ?1 AND "
                        "target = ?2 AND decisions = ?3 AND pid = ?4",
                    rec->workload_id, rec->target, rec->decisions,
                    (int64_t)getpid(), NULL, diag);
  return rc < 0 ? rc : TSL_OK;
}

int tsl_db_count_claims(tsl_db *db, int64_t workload_id, const char *target,
                        int64_t *n, tsl_diag *diag) {
  *n = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->h, "SELECT pid FROM claims WHERE workload_id = ?1 "
                                "AND target = ?2 AND pid != ?3",
                         -1, &st, NULL) != SQLITE_OK) {
    /* a database of an older tessel opened read-only has no claims table */
    if (db->readonly && strstr(sqlite3_errmsg(db->h), "no such table"))
      return TSL_OK;
    return db_fail(db, diag, TSL_EIO, "cannot prepare a statement");
  }
  sqlite3_bind_int64(st, 1, workload_id);
  sqlite3_bind_text(st, 2, target ? target : "", -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, (int64_t)getpid());
  int s, rc = TSL_OK;
  while ((s = sqlite3_step(st)) == SQLITE_ROW)
    if (pid_alive(sqlite3_column_int64(st, 0)))
      (*n)++;
  if (s != SQLITE_DONE)
    rc = db_fail(db, diag, TSL_EIO, "cannot read the claims");
  sqlite3_finalize(st);
  return rc;
}

void db_drop_own_claims(tsl_db *db) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db->h, "DELETE FROM claims WHERE pid = ?1", -1, &st,
                         NULL) != SQLITE_OK)
    return;
  sqlite3_bind_int64(st, 1, (int64_t)getpid());
  sqlite3_step(st);
  sqlite3_finalize(st);
}
