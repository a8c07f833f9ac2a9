/*
 * tests/db/make_db.c — writes a small tuning database for the CLI tests:
 * make_db DB PROGRAM_OUT. The vadd workload (also written to PROGRAM_OUT)
 * with three records of real split traces (outer factors 2, 4, 8; the one
 * with 8 is the fastest OK one, 4 a crash) and vmul with one error record.
 */
#include "db_fixture.h"

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  tsl_diag d = {0};
  fx_prog a, b;
  tsl_db *db;
  if (fx_parse(fx_vadd, &a) || fx_parse(fx_vmul, &b) ||
      tsl_db_open(argv[1], TSL_DB_CREATE, &db, &d) != TSL_OK) {
    fprintf(stderr, "%s\n", d.text);
    return 1;
  }
  int64_t wa, wb;
  tsl_db_workload(db, a.func, 128, &wa, &d);
  tsl_db_workload(db, b.func, 64, &wb, &d);
  int outers[3] = {2, 4, 8};
  double lat[3] = {2e-6, 1e-7, 1e-6};
  for (int i = 0; i < 3; i++) {
    char *j, *k;
    if (fx_trace(&a, outers[i], &j, &k))
      return 1;
    tsl_db_record r = fx_record(wa, "llvm -threads=1", j, k, i == 1 ? TSL_RUN_CRASH : TSL_RUN_OK,
                                lat[i], 1700000000 + i);
    int rc = tsl_db_add(db, &r, &d);
    if (i == 0) {
      tsl_db_record e = fx_record(wb, "llvm -threads=1", j, k, TSL_RUN_TIMEOUT, -1, 1700000100);
      rc |= tsl_db_add(db, &e, &d);
    }
    free(j);
    free(k);
    if (rc) {
      fprintf(stderr, "%s\n", d.text);
      return 1;
    }
  }
  tsl_db_close(db);
  FILE *f = fopen(argv[2], "w");
  fputs(fx_vadd, f);
  fclose(f);
  fx_free(&a);
  fx_free(&b);
  return 0;
}
