/*
 * tests/db/test_db_fixes.c — claims across processes (one winner, dead
 * holders taken over, add/unclaim/close dropping ours, counting others),
 * concurrent creation of one new file, databases this process cannot write
 * (as an unprivileged user when run as root), and the import checks (field
 * types, status range, decisions recomputed from the trace).
 */
#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db_fixture.h"
#include "db_raw.h"
#include "tap.h"


static void spit(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

/* Rows of claims matching `where` read with a raw connection. */
static int raw_count(const char *path, const char *where) {
  sqlite3 *raw;
  sqlite3_stmt *st;
  char sql[256];
  int n = -1;
  snprintf(sql, sizeof sql, "SELECT count(*) FROM claims WHERE %s", where);
  sqlite3_open(path, &raw);
  if (sqlite3_prepare_v2(raw, sql, -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(raw);
  return n;
}

/* A pid that surely does not run: a child that has exited and was reaped. */
static pid_t dead_pid(void) {
  pid_t p = fork();
  if (p == 0)
    _exit(0);
  waitpid(p, NULL, 0);
  return p;
}

/* ---- claims ------------------------------------------------------------------ */

/* Two processes claim `key` at once; each sends '1' or '0' and holds its
 * claim until `done` is closed. Returns the number of winners (-1 on error)
 * and the live claims the parent counts meanwhile. */
static int race(const char *path, int64_t wid, const char *key, int64_t *counted) {
  int go[2], res[2], done[2];
  if (pipe(go) || pipe(res) || pipe(done))
    return -1;
  pid_t kids[2];
  for (int k = 0; k < 2; k++) {
    kids[k] = fork();
    if (kids[k] == 0) {
      close(go[1]);
      close(done[1]);
      tsl_diag d = {0};
      tsl_db *db;
      char c = 'e';
      int claimed = 0;
      if (tsl_db_open(path, TSL_DB_CREATE, &db, &d) == TSL_OK) {
        char x;
        (void)!read(go[0], &x, 1); /* EOF when the parent releases all */
        if (tsl_db_claim(db, wid, "llvm", key, 0, &claimed, &d) == TSL_OK)
          c = claimed ? '1' : '0';
      }
      if (c == 'e')
        fprintf(stderr, "race child: %s\n", d.text);
      (void)!write(res[1], &c, 1);
      char x;
      (void)!read(done[0], &x, 1);
      if (c != 'e')
        tsl_db_close(db);
      _exit(0);
    }
  }
  close(go[0]);
  close(res[1]);
  close(done[0]);
  close(go[1]); /* go */
  int winners = 0;
  for (int k = 0; k < 2; k++) {
    char c = 'e';
    if (read(res[0], &c, 1) != 1 || c == 'e')
      winners = -100;
    winners += c == '1';
  }
  tsl_diag d = {0};
  tsl_db *db;
  *counted = -1;
  if (tsl_db_open(path, TSL_DB_READONLY, &db, &d) == TSL_OK) {
    tsl_db_count_claims(db, wid, "llvm", counted, &d);
    tsl_db_close(db);
  }
  close(done[1]);
  close(res[0]);
  for (int k = 0; k < 2; k++)
    waitpid(kids[k], NULL, 0);
  return winners;
}

static void test_claims(const fx_prog *pa, char **tj, char **tk) {
  tsl_diag d = {0};
  const char *path = tmp_path("claims.db");
  tsl_db *db;
  int64_t wid = 0;
  is_int(tsl_db_open(path, TSL_DB_CREATE, &db, &d), TSL_OK, "claims: open");
  tsl_db_workload(db, pa->func, 128, &wid, &d);
  tsl_db_close(db);

  int all_one = 1, all_counted = 1;
  for (int i = 0; i < 8; i++) {
    char key[32];
    snprintf(key, sizeof key, "[[race,%d]]", i);
    int64_t counted = -1;
    int w = race(path, wid, key, &counted);
    if (w != 1) {
      all_one = 0;
      tap_diag("round %d: %d winners", i, w);
    }
    if (counted != 1)
      all_counted = 0;
  }
  ok(all_one, "two processes claiming one key at once: exactly one wins (8 rounds)");
  ok(all_counted, "  ... and another process counts exactly one live claim");
  is_int(raw_count(path, "1"), 0, "  ... closing their databases dropped the claims");

  is_int(tsl_db_open(path, TSL_DB_CREATE, &db, &d), TSL_OK, "reopen");
  char sql[256];
  snprintf(sql, sizeof sql, "INSERT INTO claims VALUES (%lld, 'llvm', '%s', %d, 1)",
           (long long)wid, tk[0], (int)dead_pid());
  raw_exec(path, sql);
  int64_t n = -1;
  is_int(tsl_db_count_claims(db, wid, "llvm", &n, &d), TSL_OK, "count_claims");
  is_int(n, 0, "  ... a dead process's claim is not counted");
  int claimed = -1;
  is_int(tsl_db_claim(db, wid, "llvm", tk[0], 0, &claimed, &d), TSL_OK, "claim a key a dead process held");
  is_int(claimed, 1, "  ... taken over");
  snprintf(sql, sizeof sql, "pid = %d AND decisions = '%s'", (int)getpid(), tk[0]);
  is_int(raw_count(path, sql), 1, "  ... the row is ours now");
  is_int(tsl_db_claim(db, wid, "llvm", tk[0], 0, &claimed, &d), TSL_OK, "claim it again");
  is_int(claimed, 1, "  ... still ours");
  is_int(tsl_db_count_claims(db, wid, "llvm", &n, &d), TSL_OK, "count_claims");
  is_int(n, 0, "  ... our own claims are not counted");

  /* pid 1 always exists (EPERM counts as alive for non-root) */
  snprintf(sql, sizeof sql, "INSERT INTO claims VALUES (%lld, 'llvm', '%s', 1, 1)",
           (long long)wid, tk[1]);
  raw_exec(path, sql);
  is_int(tsl_db_claim(db, wid, "llvm", tk[1], 0, &claimed, &d), TSL_OK, "claim a key a live process holds");
  is_int(claimed, 0, "  ... not claimed");
  is_int(tsl_db_count_claims(db, wid, "llvm", &n, &d), TSL_OK, "count_claims");
  is_int(n, 1, "  ... counts the live process's claim");
  is_int(tsl_db_count_claims(db, wid, "cuda", &n, &d), TSL_OK, "count_claims of another target");
  is_int(n, 0, "  ... none");

  tsl_db_record r = fx_record(wid, "llvm", tj[0], tk[0], 0, 1e-6, 100);
  is_int(tsl_db_add(db, &r, &d), TSL_OK, "add the claimed candidate");
  snprintf(sql, sizeof sql, "decisions = '%s'", tk[0]);
  is_int(raw_count(path, sql), 0, "  ... the add dropped our claim");
  is_int(tsl_db_claim(db, wid, "llvm", tk[0], 0, &claimed, &d), TSL_OK, "claim a measured key");
  is_int(claimed, 0, "  ... not claimed (a record has it)");
  tsl_db_record r2 = fx_record(wid, "llvm", tj[1], tk[1], 0, 1e-6, 100);
  is_int(tsl_db_add(db, &r2, &d), TSL_OK, "add a key another process claims");
  snprintf(sql, sizeof sql, "decisions = '%s' AND pid = 1", tk[1]);
  is_int(raw_count(path, sql), 1, "  ... its claim stays (only ours is dropped)");

  is_int(tsl_db_claim(db, wid, "llvm", tk[2], 0, &claimed, &d), TSL_OK, "claim");
  is_int(claimed, 1, "  ... claimed");
  is_int(tsl_db_unclaim(db, wid, "llvm", tk[2], &d), TSL_OK, "unclaim");
  snprintf(sql, sizeof sql, "decisions = '%s'", tk[2]);
  is_int(raw_count(path, sql), 0, "  ... the row is gone");
  tsl_db_claim(db, wid, "llvm", tk[2], 0, &claimed, &d);
  tsl_db_claim(db, wid, "llvm", tk[3], 0, &claimed, &d);
  snprintf(sql, sizeof sql, "pid = %d", (int)getpid());
  is_int(raw_count(path, sql), 2, "two claims held");
  /* the budget: 2 records + 3 live claims (ours 2, pid 1's 1) = 5 spent */
  claimed = -1;
  is_int(tsl_db_claim(db, wid, "llvm", "[[budget,1]]", 5, &claimed, &d), TSL_OK,
         "claim with a budget of 5");
  is_int(claimed, 2, "  ... refused: 2 records and 3 live claims spend it");
  is_int(tsl_db_claim(db, wid, "llvm", "[[budget,1]]", 6, &claimed, &d), TSL_OK,
         "claim with a budget of 6");
  is_int(claimed, 1, "  ... claimed");
  is_int(raw_count(path, sql), 3, "  ... three claims held");
  tsl_db_close(db);
  is_int(raw_count(path, sql), 0, "  ... close dropped every claim of ours");
  is_int(raw_count(path, "pid = 1"), 1, "  ... and left the others'");

  is_int(tsl_db_open(path, TSL_DB_READONLY, &db, &d), TSL_OK, "read-only open");
  claimed = -1;
  is_int(tsl_db_claim(db, wid, "llvm", "[[9,1]]", 0, &claimed, &d), TSL_EINVALID,
         "read-only: claim is an error");
  ok(claimed == 0 && strstr(d.text, "read-only"), "  ... saying read-only, not claimed");
  is_int(tsl_db_unclaim(db, wid, "llvm", "[[9,1]]", &d), TSL_EINVALID, "read-only: unclaim is an error");
  is_int(tsl_db_count_claims(db, wid, "llvm", &n, &d), TSL_OK, "read-only: count_claims works");
  is_int(n, 1, "  ... one live claim");
  tsl_db_close(db);

  /* a database made before claims existed gets the table */
  const char *old = tmp_path("old.db");
  is_int(tsl_db_open(old, TSL_DB_CREATE, &db, &d), TSL_OK, "new database");
  tsl_db_close(db);
  raw_exec(old, "DROP TABLE claims");
  is_int(tsl_db_open(old, TSL_DB_READONLY, &db, &d), TSL_OK, "an old database opens read-only");
  is_int(tsl_db_count_claims(db, 1, "llvm", &n, &d), TSL_OK, "  ... count_claims works without the table");
  tsl_db_close(db);
  is_int(tsl_db_open(old, TSL_DB_CREATE, &db, &d), TSL_OK, "an old database opens for writing");
  is_int(tsl_db_claim(db, 1, "llvm", "[]", 0, &claimed, &d), TSL_OK, "  ... and claims work");
  tsl_db_close(db);
}

/* tsl_db_claim_batch: one transaction for a batch, the budget read once
 * from the record counts and the live claims, then counted up. */
static void test_claim_batch(const fx_prog *pa, char **tj, char **tk) {
  const char *path = tmp_path("batch.db");
  tsl_db *db = NULL;
  tsl_diag d = {0};
  int64_t wid = 0;
  tsl_db_open(path, TSL_DB_CREATE, &db, &d);
  tsl_db_workload(db, pa->func, 64, &wid, &d);
  tsl_db_record r = fx_record(wid, "llvm", tj[0], tk[0], 0, 1e-6, 100);
  tsl_db_add(db, &r, &d);
  char sql[256];
  snprintf(sql, sizeof sql, "INSERT INTO claims VALUES (%lld, 'llvm', '[[7,7]]', 1, 1)",
           (long long)wid);
  raw_exec(path, sql); /* pid 1's: live */
  /* spent: 1 record + 1 live claim; budget 5 leaves 3 */
  const char *keys[] = {tk[0], "[[7,7]]", NULL, "[[b,1]]", "[[b,2]]", "[[b,3]]", "[[b,4]]",
                        "[[b,5]]"};
  int claimed[8];
  is_int(tsl_db_claim_batch(db, wid, "llvm", 8, keys, 5, claimed, &d), TSL_OK,
         "claim a batch of 8 keys with a budget of 5");
  ok(claimed[0] == 0 && claimed[1] == 0 && claimed[2] == 0,
     "  ... a measured key, one a live process holds and a NULL key: 0");
  ok(claimed[3] == 1 && claimed[4] == 1 && claimed[5] == 1,
     "  ... the next three free keys claimed (1 record + 1 live claim + 3 = 5)");
  ok(claimed[6] == 2 && claimed[7] == 2, "  ... the rest: 2, the budget spent");
  snprintf(sql, sizeof sql, "pid = %d", (int)getpid());
  is_int(raw_count(path, sql), 3, "  ... three claims of ours in the table");
  const char *again[] = {"[[b,1]]", "[[b,6]]"};
  is_int(tsl_db_claim_batch(db, wid, "llvm", 2, again, 6, claimed, &d), TSL_OK,
         "a second batch with a budget of 6");
  ok(claimed[0] == 1 && claimed[1] == 1, "  ... its own claim again, and one more key");
  ok(raw_int(path, "SELECT n FROM record_counts") == 1,
     "the record count of the workload and target is 1");
  tsl_db_record r2 = fx_record(wid, "llvm", tj[1], tk[1], 0, 1e-6, 101);
  tsl_db_record r3 = fx_record(wid, "other", tj[2], tk[2], 0, 1e-6, 102);
  tsl_db_add(db, &r2, &d);
  tsl_db_add(db, &r3, &d);
  ok(raw_int(path, "SELECT n FROM record_counts WHERE target = 'llvm'") == 2 &&
         raw_int(path, "SELECT n FROM record_counts WHERE target = 'other'") == 1,
     "  ... counted up by every record added, per target");
  tsl_db_close(db);
  /* a database of schema version 2 (no counts) gets them when opened */
  raw_exec(path, "DROP TRIGGER records_counted; DROP TRIGGER records_uncounted;"
                 "DROP TABLE record_counts; PRAGMA user_version = 2");
  db = NULL;
  is_int(tsl_db_open(path, TSL_DB_READONLY, &db, &d), TSL_OK,
         "a version-2 database opens read-only, unchanged");
  tsl_db_close(db);
  ok(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'record_counts'") == 0,
     "  ... without the counts");
  db = NULL;
  is_int(tsl_db_open(path, TSL_DB_CREATE, &db, &d), TSL_OK, "  ... and opens for writing");
  ok(raw_int(path, "PRAGMA user_version") == 4 &&
         raw_int(path, "SELECT n FROM record_counts WHERE target = 'llvm'") == 2 &&
         raw_int(path, "SELECT n FROM record_counts WHERE target = 'other'") == 1,
     "  ... made version 4 (3: with the counts of its records)");
  tsl_db_record r4 = fx_record(wid, "llvm", tj[3], tk[3], 0, 1e-6, 103);
  tsl_db_add(db, &r4, &d);
  ok(raw_int(path, "SELECT n FROM record_counts WHERE target = 'llvm'") == 3,
     "  ... which count on");
  tsl_db_close(db);
}

/* ---- re-measurements (1.8, schema version 4) -------------------------------------- */

static void test_remeasured(const fx_prog *pa, char **tj, char **tk) {
  const char *path = tmp_path("remeasured.db");
  tsl_db *db = NULL;
  tsl_diag d = {0};
  int64_t wid = 0;
  tsl_db_open(path, TSL_DB_CREATE, &db, &d);
  tsl_db_workload(db, pa->func, 64, &wid, &d);
  tsl_db_record r[4];
  double lat[4] = {1e-6, 2e-6, 3e-6, -1};
  for (int i = 0; i < 4; i++) {
    r[i] = fx_record(wid, "llvm", tj[i], tk[i], i == 3 ? TSL_RUN_CRASH : 0, lat[i], 100 + i);
    tsl_db_add(db, &r[i], &d);
  }
  tsl_db_remeasured m;
  is_int(tsl_db_best_remeasured(db, wid, "llvm", NULL, NULL, &m, &d), TSL_ENOTFOUND,
         "no re-measured best before a re-measurement");
  tsl_db_remeasured a = {sizeof a, r[1].id, 0.9e-6, 0.8e-6, 1.2e-6, 3, 200};
  tsl_db_remeasured b = {sizeof b, r[0].id, 1.5e-6, 1.4e-6, 1.6e-6, 3, 200};
  ok(tsl_db_set_remeasured(db, &a, &d) == TSL_OK && tsl_db_set_remeasured(db, &b, &d) == TSL_OK,
     "two records re-measured");
  ok(tsl_db_best_remeasured(db, wid, "llvm", NULL, NULL, &m, &d) == TSL_OK &&
         m.record_id == r[1].id && m.median_s == 0.9e-6 && m.min_s == 0.8e-6 &&
         m.max_s == 1.2e-6 && m.rounds == 3,
     "  ... the best is the lowest median, not the fastest in-run time");
  is_int(tsl_db_best_remeasured(db, wid, "other", NULL, NULL, &m, &d), TSL_ENOTFOUND,
         "  ... on its target only");
  ok(tsl_db_get_remeasured(db, r[0].id, &m, &d) == TSL_OK && m.median_s == 1.5e-6,
     "  ... each record's figures read back");
  is_int(tsl_db_get_remeasured(db, r[2].id, &m, &d), TSL_ENOTFOUND,
         "  ... none for a record not re-measured");
  a.median_s = 2e-6;
  a.max_s = 2.5e-6;
  ok(tsl_db_set_remeasured(db, &a, &d) == TSL_OK &&
         tsl_db_best_remeasured(db, wid, "llvm", NULL, NULL, &m, &d) == TSL_OK &&
         m.record_id == r[0].id,
     "a later re-measurement replaces a record's figures");
  tsl_db_remeasured bad = {sizeof bad, r[3].id, 1e-6, 1e-6, 1e-6, 1, 200};
  is_int(tsl_db_set_remeasured(db, &bad, &d), TSL_ENOTFOUND,
         "a failed record is not re-measured");
  bad = (tsl_db_remeasured){sizeof bad, r[2].id, 1e-6, 2e-6, 3e-6, 1, 200};
  is_int(tsl_db_set_remeasured(db, &bad, &d), TSL_EINVALID, "min above the median is refused");
  bad.min_s = 0.5e-6;
  bad.rounds = 0;
  is_int(tsl_db_set_remeasured(db, &bad, &d), TSL_EINVALID, "  ... and zero rounds");
  tsl_db_close(db);
  /* a database of version 3 gets the table when opened for writing */
  raw_exec(path, "DROP TABLE remeasured; PRAGMA user_version = 3");
  db = NULL;
  is_int(tsl_db_open(path, TSL_DB_READONLY, &db, &d), TSL_OK, "a version-3 database opens read-only");
  ok(tsl_db_best_remeasured(db, wid, "llvm", NULL, NULL, &m, &d) == TSL_ENOTFOUND &&
         tsl_db_get_remeasured(db, r[0].id, &m, &d) == TSL_ENOTFOUND,
     "  ... where it has no re-measurements (none, not an error)");
  tsl_db_close(db);
  db = NULL;
  is_int(tsl_db_open(path, TSL_DB_CREATE, &db, &d), TSL_OK, "  ... and opens for writing");
  ok(raw_int(path, "PRAGMA user_version") == 4 &&
         tsl_db_best_remeasured(db, wid, "llvm", NULL, NULL, &m, &d) == TSL_ENOTFOUND,
     "  ... made version 4, its re-measurements table empty");
  tsl_db_close(db);
}

/* ---- concurrent creation -------------------------------------------------------- */

static void test_concurrent_create(void) {
  int failures = 0;
  for (int round = 0; round < 20; round++) {
    char name[32];
    snprintf(name, sizeof name, "par/new%d.db", round);
    const char *path = tmp_path(name);
    int go[2];
    if (pipe(go))
      return;
    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
      kids[k] = fork();
      if (kids[k] == 0) {
        close(go[1]);
        char x;
        (void)!read(go[0], &x, 1);
        tsl_diag d = {0};
        tsl_db *db;
        if (tsl_db_open(path, TSL_DB_CREATE, &db, &d) != TSL_OK) {
          printf("# round %d: %s\n", round, d.text);
          fflush(stdout);
          _exit(1);
        }
        tsl_db_close(db);
        _exit(0);
      }
    }
    close(go[0]);
    close(go[1]);
    for (int k = 0; k < 4; k++) {
      int st = 0;
      waitpid(kids[k], &st, 0);
      failures += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
  }
  is_int(failures, 0, "4 processes opening one new database at once, 20 times: all succeed");
}

/* ---- databases this process cannot write ------------------------------------------ */

/* Runs fn in a child as an unprivileged user (when root); its exit code. */
static int as_user(int (*fn)(void)) {
  pid_t p = fork();
  if (p == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
      _exit(99);
    _exit(fn());
  }
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 98;
}

/* Bits: 1 write open failed with the read-only message, 2 read-only open
 * works and counts 1 record. */
static int child_readonly_file(void) {
  tsl_diag d = {0};
  tsl_db *db;
  int bits = 0;
  const char *path = tmp_path("ro/file.db");
  if (tsl_db_open(path, TSL_DB_CREATE, &db, &d) != TSL_OK &&
      strstr(d.text, path) && strstr(d.text, "read-only") &&
      strstr(d.text, "tessel db stats"))
    bits |= 1;
  else
    printf("# write open: %s\n", d.text);
  tsl_db_stats s;
  if (tsl_db_open(path, TSL_DB_READONLY, &db, &d) == TSL_OK) {
    if (tsl_db_get_stats(db, &s, &d) == TSL_OK && s.records == 1)
      bits |= 2;
    tsl_db_close(db);
  } else {
    printf("# read-only open: %s\n", d.text);
  }
  fflush(stdout);
  return bits;
}

static int child_readonly_folder(void) {
  tsl_diag d = {0};
  tsl_db *db;
  int bits = 0;
  const char *path = tmp_path("rodir/f.db");
  if (tsl_db_open(path, TSL_DB_CREATE, &db, &d) != TSL_OK &&
      strstr(d.text, "read-only"))
    bits |= 1;
  else
    printf("# write open: %s\n", d.text);
  tsl_db_stats s;
  if (tsl_db_open(path, TSL_DB_READONLY, &db, &d) == TSL_OK) {
    if (tsl_db_get_stats(db, &s, &d) == TSL_OK && s.records == 1)
      bits |= 2;
    else
      printf("# stats: %s\n", d.text);
    tsl_db_close(db);
  } else {
    printf("# read-only open: %s\n", d.text);
  }
  fflush(stdout);
  return bits;
}

static void make_one_record_db(const char *path, const fx_prog *pa, char *tj,
                               char *tk) {
  tsl_diag d = {0};
  tsl_db *db;
  int64_t wid = 0;
  tsl_db_open(path, TSL_DB_CREATE, &db, &d);
  tsl_db_workload(db, pa->func, 128, &wid, &d);
  tsl_db_record r = fx_record(wid, "llvm", tj, tk, 0, 1e-6, 100);
  tsl_db_add(db, &r, &d);
  tsl_db_close(db);
}

static void test_readonly(const fx_prog *pa, char **tj, char **tk) {
  chmod(tmp, 0755);
  mkdir(tmp_path("ro"), 0777);
  chmod(tmp_path("ro"), 0777);
  make_one_record_db(tmp_path("ro/file.db"), pa, tj[0], tk[0]);
  chmod(tmp_path("ro/file.db"), 0444);
  int bits = as_user(child_readonly_file);
  if (bits >= 98) {
    ok(1, "# SKIP cannot become an unprivileged user");
    ok(1, "# SKIP cannot become an unprivileged user");
  } else {
    ok(bits & 1, "a read-only file opened for writing fails at once, naming "
                 "the path and the commands that still work");
    ok(bits & 2, "  ... and it opens read-only");
  }

  mkdir(tmp_path("rodir"), 0777);
  make_one_record_db(tmp_path("rodir/f.db"), pa, tj[0], tk[0]);
  chmod(tmp_path("rodir/f.db"), 0644);
  chmod(tmp_path("rodir"), 0555);
  bits = as_user(child_readonly_folder);
  if (bits >= 98) {
    ok(1, "# SKIP cannot become an unprivileged user");
    ok(1, "# SKIP cannot become an unprivileged user");
  } else {
    ok(bits & 1, "a database in a read-only folder opened for writing fails");
    ok(bits & 2, "  ... and it opens read-only (stats read it)");
  }
  chmod(tmp_path("rodir"), 0755);
  chmod(tmp, 0700);
}

/* ---- import checks ----------------------------------------------------------------- */

/* The first exported line of a one-record database, as an object. */
static json_t *good_line(const fx_prog *pa, char *tj, char *tk) {
  const char *path = tmp_path("src.db");
  make_one_record_db(path, pa, tj, tk);
  tsl_diag d = {0};
  tsl_db *db;
  tsl_db_open(path, TSL_DB_READONLY, &db, &d);
  tsl_db_export(db, tmp_path("src.jsonl"), &d);
  tsl_db_close(db);
  json_error_t je;
  return json_load_file(tmp_path("src.jsonl"), JSON_DISABLE_EOF_CHECK, &je);
}

/* Import a one-line file holding `o` (with key set to `v`, or removed when v
 * is NULL and `remove`) into a fresh database; returns the status, message
 * in d. Checks nothing was added. */
static int import_one(json_t *o, const char *key, json_t *v, int remove,
                      tsl_diag *d, int *added_any) {
  json_t *c = json_deep_copy(o);
  if (v)
    json_object_set_new(c, key, v);
  else if (remove)
    json_object_del(c, key);
  char *s = json_dumps(c, JSON_COMPACT);
  json_decref(c);
  char *text = malloc(strlen(s) + 2);
  sprintf(text, "%s\n", s);
  free(s);
  const char *jl = tmp_path("one.jsonl");
  spit(jl, text);
  free(text);
  static int k;
  char name[32];
  snprintf(name, sizeof name, "imp%d.db", k++);
  tsl_db *db;
  tsl_db_open(tmp_path(name), TSL_DB_CREATE, &db, d);
  int64_t added = 0, skipped = 0;
  int rc = tsl_db_import(db, jl, &added, &skipped, d);
  tsl_db_stats st;
  tsl_diag d2 = {0};
  tsl_db_get_stats(db, &st, &d2);
  *added_any = st.records > 0;
  tsl_db_close(db);
  return rc;
}

static void test_import(const fx_prog *pa, char **tj, char **tk) {
  json_t *o = good_line(pa, tj[0], tk[0]);
  ok(o != NULL, "an exported line");
  if (!o)
    return;
  tsl_diag d = {0};
  int any = 0;
  is_int(import_one(o, "x", NULL, 0, &d, &any), TSL_OK, "the unchanged line imports");
  ok(any, "  ... adding it");

  is_int(import_one(o, "decisions", json_string(tk[1]), 0, &d, &any), TSL_EPARSE,
         "decisions that differ from the trace are refused");
  ok(strstr(d.text, "one.jsonl:1: error: decisions: do not match the trace") && !any,
     "  ... saying so, nothing added");
  tap_diag("%s", d.text);
  is_int(import_one(o, "status", json_integer(8), 0, &d, &any), TSL_EPARSE,
         "status 8 is refused");
  ok(strstr(d.text, "status: 8 is not a TSL_RUN_* code (valid: 0 ok to 7 stopped") && !any,
     "  ... naming the field and the valid codes");
  is_int(import_one(o, "status", json_integer(6), 0, &d, &any), TSL_OK,
         "status 6 (setup error) imports");
  is_int(import_one(o, "status", json_integer(TSL_RUN_STOPPED), 0, &d, &any), TSL_OK,
         "status 7 (stopped: a lower bound as latency) imports");
  is_int(import_one(o, "bogus", json_integer(1), 0, &d, &any), TSL_EPARSE,
         "an unknown field is refused");
  ok(strstr(d.text, ":1: error: unknown field 'bogus'; valid: workload,") && !any,
     "  ... naming it and the valid fields");
  is_int(import_one(o, "target", json_string(""), 0, &d, &any), TSL_EPARSE,
         "an empty target is refused");
  ok(strstr(d.text, ":1: error: target: empty") && !any, "  ... saying so");
  is_int(import_one(o, "latency_s", json_real(-5), 0, &d, &any), TSL_EPARSE,
         "a successful record without a latency is refused");
  ok(strstr(d.text, ":1: error: latency_s: a successful record (status 0) needs a "
                    "latency > 0, got -5") && !any, "  ... saying so");
  is_int(import_one(o, "latency_s", json_string("fast"), 0, &d, &any), TSL_EPARSE,
         "latency_s \"fast\" is refused");
  ok(strstr(d.text, ":1: error: latency_s: expected a number, got \"fast\"") != NULL,
     "  ... latency_s: expected a number, got \"fast\"");
  is_int(import_one(o, "trace", json_integer(5), 0, &d, &any), TSL_EPARSE,
         "\"trace\": 5 is refused");
  ok(strstr(d.text, "trace: expected an object") && strstr(d.text, "got 5") &&
         !strstr(d.text, "out of memory"),
     "  ... trace: expected an object ..., got 5 (not out of memory)");
  tap_diag("%s", d.text);
  is_int(import_one(o, "timestamp", NULL, 1, &d, &any), TSL_EPARSE, "a missing timestamp");
  ok(strstr(d.text, "timestamp: missing (expected an integer)") != NULL, "  ... named");
  is_int(import_one(o, "target", json_true(), 0, &d, &any), TSL_EPARSE, "target true");
  ok(strstr(d.text, "target: expected a string, got true") != NULL, "  ... named with its type");
  json_t *w = json_deep_copy(json_object_get(o, "workload"));
  json_object_set_new(w, "flops", json_string("many"));
  is_int(import_one(o, "workload", w, 0, &d, &any), TSL_EPARSE, "workload.flops a string");
  ok(strstr(d.text, "flops: expected a number") != NULL, "  ... named");

  int64_t n = -1;
  is_int(tsl_db_check_import(tmp_path("src.jsonl"), &n, &d), TSL_OK, "check_import of a good file");
  is_int(n, 1, "  ... one record");
  spit(tmp_path("garbage.jsonl"), "hello\n");
  is_int(tsl_db_check_import(tmp_path("garbage.jsonl"), &n, &d), TSL_EPARSE, "check_import of garbage");
  ok(strstr(d.text, "garbage.jsonl:1: error") != NULL, "  ... FILE:LINE");
  is_int(tsl_db_check_import(tmp_path("nope.jsonl"), &n, &d), TSL_EIO, "check_import of a missing file");
  json_decref(o);
}

int main(void) {
  strcpy(tmp, "/tmp/tessel_dbfix_XXXXXX");
  if (!mkdtemp(tmp))
    return 1;
  fx_prog pa;
  if (fx_parse(fx_vadd, &pa))
    return 1;
  char *tj[4], *tk[4];
  int outers[4] = {2, 4, 8, 16};
  for (int i = 0; i < 4; i++)
    if (fx_trace(&pa, outers[i], &tj[i], &tk[i]))
      return 1;

  test_claims(&pa, tj, tk);
  test_claim_batch(&pa, tj, tk);
  test_remeasured(&pa, tj, tk);
  test_concurrent_create();
  test_readonly(&pa, tj, tk);
  test_import(&pa, tj, tk);

  for (int i = 0; i < 4; i++) {
    free(tj[i]);
    free(tk[i]);
  }
  fx_free(&pa);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s'; rm -rf '%s'", tmp, tmp);
  if (system(cmd) != 0)
    return 1;
  return tap_done();
}
