/*
 * tests/db/test_db_kill.c — durability: a child process adds records in a
 * loop and is killed with SIGKILL at random moments, several times; after
 * each kill the database opens, PRAGMA integrity_check is "ok", every
 * record is complete, and no committed record was lost.
 */
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "db_fixture.h"
#include "tap.h"

/* The child: add records until killed; writes each committed id to `fd`. */
static void child(const char *path, int fd) {
  tsl_diag d = {0};
  fx_prog p;
  char *json, *key;
  tsl_db *db;
  if (fx_parse(fx_vadd, &p) || fx_trace(&p, 4, &json, &key) ||
      tsl_db_open(path, TSL_DB_CREATE, &db, &d) != TSL_OK)
    _exit(3);
  int64_t wid;
  if (tsl_db_workload(db, p.func, 64, &wid, &d) != TSL_OK)
    _exit(4);
  for (int64_t i = 0;; i++) {
    char dec[64];
    snprintf(dec, sizeof dec, "[[2,[%lld]]]", (long long)i);
    tsl_db_record r = fx_record(wid, "llvm", json, dec, (int)(i % 3 == 0), 1e-3 + (double)i * 1e-9, 1000 + i);
    r.n_times = 17;
    for (int k = 0; k < 17; k++)
      r.times_s[k] = (double)k;
    if (tsl_db_add(db, &r, &d) != TSL_OK)
      _exit(5);
    if (write(fd, &r.id, sizeof r.id) != sizeof r.id)
      _exit(6);
  }
}

typedef struct check {
  int bad;
  int64_t n, max_id;
  const char *json;
} check;

static int check_fn(void *u, const tsl_db_record *r) {
  check *c = u;
  c->n++;
  if (r->id > c->max_id)
    c->max_id = r->id;
  int good = !strcmp(r->target, "llvm") && !strcmp(r->trace_json, c->json) &&
             r->n_times == 17 && r->times_s[16] == 16.0 && !strcmp(r->version, "0.1.0") &&
             r->decisions[0] == '[' && r->build_s == 0.25 && r->timestamp >= 1000;
  c->bad += !good;
  return 0;
}

int main(void) {
  char tmp[] = "/tmp/tessel_dbkill_XXXXXX";
  if (!mkdtemp(tmp))
    return 1;
  char path[128];
  snprintf(path, sizeof path, "%s/kill.db", tmp);
  fx_prog p;
  char *json, *key;
  if (fx_parse(fx_vadd, &p) || fx_trace(&p, 4, &json, &key))
    return 1;
  unsigned seed = getenv("TESSEL_TEST_SEED") ? (unsigned)strtoul(getenv("TESSEL_TEST_SEED"), NULL, 10)
                                             : (unsigned)time(NULL) ^ (unsigned)getpid();
  tap_diag("kill moments drawn with seed %u (TESSEL_TEST_SEED sets it)", seed);
  srand(seed);
  int64_t committed = 0;
  for (int round = 0; round < 6; round++) {
    int pfd[2];
    if (pipe(pfd))
      return 1;
    pid_t pid = fork();
    if (pid == 0) {
      close(pfd[0]);
      child(path, pfd[1]);
    }
    close(pfd[1]);
    /* a random moment: 5..80 ms after start (the first round 2 ms: while
     * opening). Until a record has been committed, a round waits for the
     * child's first commit (10 s at most: a loaded machine, a sanitizer
     * build), then draws its moment. */
    if (round > 0 && !committed) {
      struct pollfd pf = {pfd[0], POLLIN, 0};
      poll(&pf, 1, 10000);
    }
    usleep((useconds_t)(round == 0 ? 2000 : 5000 + rand() % 75000));
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    int64_t id, last = 0;
    while (read(pfd[0], &id, sizeof id) == sizeof id)
      last = id;
    close(pfd[0]);
    if (last > committed)
      committed = last;

    tsl_diag d = {0};
    tsl_db *db = NULL;
    int rc = tsl_db_open(path, TSL_DB_READONLY, &db, &d);
    if (rc == TSL_ENOTFOUND || (rc == TSL_EINVALID && strstr(d.text, "empty"))) {
      /* killed before the file got its schema: allowed only on round 0 */
      ok(committed == 0, "round %d: killed before the database existed", round);
      continue;
    }
    ok(rc == TSL_OK, "round %d: killed by SIGKILL (%d), the database opens", round,
       WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    if (rc != TSL_OK) {
      tap_diag("%s", d.text);
      continue;
    }
    sqlite3 *raw;
    sqlite3_open_v2(path, &raw, SQLITE_OPEN_READONLY, NULL);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &st, NULL);
    sqlite3_step(st);
    is_str((const char *)sqlite3_column_text(st, 0), "ok", "  ... integrity_check ok");
    sqlite3_finalize(st);
    sqlite3_close(raw);
    check c = {0, 0, 0, json};
    tsl_db_each(db, -1, NULL, check_fn, &c, &d);
    ok(c.bad == 0, "  ... every one of %lld records is complete", (long long)c.n);
    ok(c.max_id >= committed, "  ... no committed record lost (last committed %lld, last present %lld)",
       (long long)committed, (long long)c.max_id);
    tsl_db_close(db);
  }
  ok(committed > 0, "the writer committed records before being killed");

  /* A writer killed inside a transaction of the rollback journal (as one
   * creating the database is, before the switch to WAL) leaves a hot
   * journal: a read-only open rolls it back as a writer's open would and
   * reads what was committed (here nothing: an empty file), instead of
   * failing with "attempt to write a readonly database". */
  char hot[128];
  snprintf(hot, sizeof hot, "%s/hot.db", tmp);
  pid_t pid = fork();
  if (pid == 0) {
    sqlite3 *h;
    if (sqlite3_open(hot, &h) != SQLITE_OK ||
        sqlite3_exec(h, "PRAGMA cache_size = 1; BEGIN; CREATE TABLE t(x);"
                        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c "
                        "WHERE i < 20000) INSERT INTO t SELECT randomblob(100) FROM c;",
                     NULL, NULL, NULL) != SQLITE_OK)
      _exit(3);
    _exit(0); /* no COMMIT: the journal stays hot */
  }
  int st = 0;
  waitpid(pid, &st, 0);
  char jpath[160];
  snprintf(jpath, sizeof jpath, "%s-journal", hot);
  ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && access(jpath, F_OK) == 0,
     "a writer dies inside a transaction, leaving a hot journal");
  tsl_diag hd = {0};
  tsl_db *hdb = NULL;
  int hrc = tsl_db_open(hot, TSL_DB_READONLY, &hdb, &hd);
  ok(hrc == TSL_EINVALID && strstr(hd.text, "the file is empty"),
     "  ... a read-only open rolls it back and finds the empty file it was (%s)", hd.text);
  tsl_db_close(hdb);
  free(json);
  free(key);
  fx_free(&p);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  if (system(cmd) != 0)
    return 1;
  return tap_done();
}
