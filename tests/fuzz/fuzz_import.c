/*
 * libFuzzer target for `tessel db import` (core/db): every input is a
 * JSON-lines file. tsl_db_check_import and tsl_db_import into one database
 * kept for the whole campaign must agree: both succeed (added + skipped =
 * the checked count) or both fail with "FILE:LINE: error: ..." (or
 * "FILE: ..." for the file as a whole), adding nothing; the database must
 * stay readable (stats) after every input. Anything else, a crash or a
 * sanitizer report aborts.
 */
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[64], g_in[128], g_db[128];
static tsl_db *g_dbh;

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/tessel-fuzz-import-%ld", (long)getpid());
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", g_dir, g_dir);
  if (system(cmd) != 0)
    abort();
  snprintf(g_in, sizeof g_in, "%s/in.jsonl", g_dir);
  snprintf(g_db, sizeof g_db, "%s/t.db", g_dir);
  tsl_diag d = {0};
  if (tsl_db_open(g_db, TSL_DB_CREATE, &g_dbh, &d)) {
    fprintf(stderr, "cannot open %s: %s\n", g_db, d.text);
    abort();
  }
}

void fuzz_target_cleanup(void);
void fuzz_target_cleanup(void) {
  tsl_db_close(g_dbh);
  g_dbh = NULL;
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  if (g_dir[0] && system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", g_dir);
}

static int64_t records(void) {
  tsl_db_stats st = {sizeof st, 0, 0, 0, 0};
  tsl_diag d = {0};
  if (tsl_db_get_stats(g_dbh, &st, &d)) {
    fprintf(stderr, "the database does not read back: %s\n", d.text);
    abort();
  }
  return st.records;
}

static int located(const char *msg) {
  size_t n = strlen(g_in);
  if (strncmp(msg, g_in, n) || msg[n] != ':')
    return 0;
  const char *nl = strchr(msg, '\n');
  return !nl || !strncmp(nl + 1, "note: ", 6);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_dbh)
    setup();
  FILE *f = fopen(g_in, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    abort();
  int64_t n_checked = -1, added = 0, skipped = 0, before = records();
  tsl_diag dc = {0}, di = {0};
  int rc_check = tsl_db_check_import(g_in, &n_checked, &dc);
  int rc_import = tsl_db_import(g_dbh, g_in, &added, &skipped, &di);
  int64_t after = records();
  if (!rc_check != !rc_import) {
    fprintf(stderr, "check and import disagree: '%s' / '%s'\n", dc.text, di.text);
    abort();
  }
  if (rc_import) {
    if (after != before || !located(dc.text) || !located(di.text)) {
      fprintf(stderr, "a failed import added records or says not where: '%s'\n", di.text);
      abort();
    }
  } else if (added + skipped != n_checked || after != before + added) {
    fprintf(stderr, "import counts: %lld checked, %lld added, %lld skipped, %lld -> %lld\n",
            (long long)n_checked, (long long)added, (long long)skipped, (long long)before,
            (long long)after);
    abort();
  }
  return 0;
}
