/*
 * tessel/db.h — the tuning database: every measured candidate of every
 * tuning run, in one SQLite file (WAL journal).
 *
 * Workloads are prim_funcs keyed by their structural hash (analysis.h,
 * tsl_func_hash) and stored with their canonical TVMScript; two functions
 * with one hash but different text are different workloads. A record is one
 * measured candidate: workload, target description, trace (JSON, schedule.h),
 * decisions key (search.h), status, every measured time, error text,
 * tessel version and time stamp.
 *
 * Durability: tsl_db_add commits one record in its own transaction before
 * it returns, so a process killed at any moment loses only records not yet
 * added, and the file always opens. Several processes may read while one
 * writes (WAL); writers wait up to 5 s for each other.
 *
 * Errors name the database path and SQLite's message. Opening a file that
 * is not a tessel database (or one of a newer schema) is an error that says
 * so; nothing is written to it.
 *
 * Threading: one tsl_db is used by one thread at a time.
 */
#ifndef TESSEL_DB_H
#define TESSEL_DB_H

#include <stdint.h>

#include "tessel/base.h"
#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsl_db tsl_db;

enum {
  TSL_DB_READONLY = 0, /* open an existing database for reading */
  TSL_DB_CREATE = 1    /* read-write, created (with its folder) if missing */
};

TSL_API int tsl_db_open(const char *path, uint32_t mode, tsl_db **out,
                        tsl_diag *diag);
TSL_API void tsl_db_close(tsl_db *db);
TSL_API const char *tsl_db_path(const tsl_db *db);

/* ---- workloads ------------------------------------------------------------ */

/* The id of the workload `f` (added when missing; read-only databases
 * give TSL_ENOTFOUND for a missing one). `flops` is stored with a new
 * workload (tsl_func_flops of lower.h; 0 when unknown) and, when known,
 * replaces a different count of a found one (writable databases). */
TSL_API int tsl_db_workload(tsl_db *db, const tsl_func *f, double flops,
                            int64_t *id, tsl_diag *diag);

typedef struct tsl_db_workload_info {
  uint32_t struct_size;
  int64_t id;
  uint64_t hash;
  const char *name;   /* the prim_func's name */
  const char *script; /* canonical TVMScript of the function */
  double flops;
} tsl_db_workload_info;

/* Calls fn for every workload in id order; a nonzero return from fn stops
 * and is returned. Pointers are valid during the call only. */
typedef int (*tsl_db_workload_fn)(void *user_data,
                                  const tsl_db_workload_info *w);
TSL_API int tsl_db_each_workload(tsl_db *db, tsl_db_workload_fn fn,
                                 void *user_data, tsl_diag *diag);

/* ---- records ----------------------------------------------------------------- */

#define TSL_DB_MAX_TIMES 64

typedef struct tsl_db_record {
  uint32_t struct_size;
  int64_t id;          /* set by tsl_db_add; ids grow in insertion order */
  int64_t workload_id;
  const char *target;     /* the target's description */
  const char *trace_json; /* tsl_trace_to_json */
  const char *decisions;  /* tsl_trace_decisions_key */
  int32_t status;         /* TSL_RUN_* of runner.h */
  const char *error;      /* error text; NULL or "" when status is OK */
  double latency_s;       /* median seconds per call (TSL_RUN_STOPPED: a lower
                             bound); < 0 when not measured */
  uint32_t n_times;       /* every measured time (seconds per call) */
  double times_s[TSL_DB_MAX_TIMES];
  double build_s;         /* seconds spent building; < 0 when unknown */
  const char *version;    /* tessel version that measured it */
  int64_t timestamp;      /* Unix seconds */
} tsl_db_record;

/* Append a record (rec->id is set) and commit it. Adding a record whose
 * (workload, target, decisions) is already present is allowed only for
 * import (see tsl_db_import); the tuner never does. */
TSL_API int tsl_db_add(tsl_db *db, tsl_db_record *rec, tsl_diag *diag);

/* 1 when a record with these decisions exists for workload and target, 0
 * when not, a negative status on error. */
TSL_API int tsl_db_has(tsl_db *db, int64_t workload_id, const char *target,
                       const char *decisions, tsl_diag *diag);

/* Claims: concurrent runs on one database (processes of one host) mark the
 * decision sets they are building and measuring, so that no set is measured
 * twice and the budget counts them.
 * tsl_db_claim sets *claimed to
 *   1  this process now holds (workload, target, decisions): no record has
 *      them and no live process claims them (a claim of a process that is
 *      gone is taken over);
 *   0  a record or another live process has them;
 *   2  `budget` > 0 and the records of workload and target plus the live
 *      claims (this process's included) already reach it.
 * It commits at once, checking and claiming in one transaction. tsl_db_add
 * drops this process's claim of the record's decisions in the same
 * transaction; tsl_db_unclaim drops one explicitly (a candidate given up),
 * tsl_db_close every claim of this process. */
TSL_API int tsl_db_claim(tsl_db *db, int64_t workload_id, const char *target,
                         const char *decisions, int64_t budget, int *claimed,
                         tsl_diag *diag);
/* Appended in 1.1: the keys decisions[0..n) claimed in order in one
 * transaction, claimed[i] as tsl_db_claim's *claimed (a NULL key: 0). Once
 * the budget is spent, every later free key gets 2. On error every
 * claimed[i] is 0 and nothing was claimed. */
TSL_API int tsl_db_claim_batch(tsl_db *db, int64_t workload_id, const char *target,
                               uint32_t n, const char *const *decisions, int64_t budget,
                               int *claimed, tsl_diag *diag);
TSL_API int tsl_db_unclaim(tsl_db *db, int64_t workload_id, const char *target,
                           const char *decisions, tsl_diag *diag);
/* Live claims of other processes for workload and target; *n set. */
TSL_API int tsl_db_count_claims(tsl_db *db, int64_t workload_id, const char *target,
                                int64_t *n, tsl_diag *diag);

/* Records of workload and target (errors included); *n set. */
TSL_API int tsl_db_count(tsl_db *db, int64_t workload_id, const char *target,
                         int64_t *n, tsl_diag *diag);

/* Calls fn for each record in id order, filtered by workload (< 0: all)
 * and target (NULL: all); a nonzero return from fn stops and is returned.
 * The record's strings are valid during the call only. */
typedef int (*tsl_db_record_fn)(void *user_data, const tsl_db_record *rec);
TSL_API int tsl_db_each(tsl_db *db, int64_t workload_id, const char *target,
                        tsl_db_record_fn fn, void *user_data, tsl_diag *diag);

/* The fastest record with status OK (ties: the older) for workload and
 * target (NULL: any target) passed to fn; TSL_ENOTFOUND when none. */
TSL_API int tsl_db_best(tsl_db *db, int64_t workload_id, const char *target,
                        tsl_db_record_fn fn, void *user_data, tsl_diag *diag);
/* The k fastest records with status OK, fastest first (ties: the older),
 * passed to fn in that order (none: TSL_OK without a call), as TVM's
 * Database.get_top_k: what an evolutionary search seeds its population with. */
TSL_API int tsl_db_top(tsl_db *db, int64_t workload_id, const char *target, uint32_t k,
                       tsl_db_record_fn fn, void *user_data, tsl_diag *diag);

/* ---- re-measurements (appended in 1.8) -------------------------------------
 * The tuner's reported best is the fastest of many noisy measurements,
 * which flatters it. At the end of a run it measures its fastest records
 * again in a fresh worker, several rounds interleaved, and keeps each
 * record's figures here (one row per record; a later run's replace them). */
typedef struct tsl_db_remeasured {
  uint32_t struct_size;
  int64_t record_id; /* a successful record */
  double median_s;   /* the median of the rounds' medians, seconds per call */
  double min_s;      /* the fastest and slowest round: the spread */
  double max_s;
  uint32_t rounds;
  int64_t timestamp; /* Unix seconds */
} tsl_db_remeasured;

/* Store `r` (TSL_ENOTFOUND when no successful record has its id; rounds
 * >= 1 and 0 <= min_s <= median_s <= max_s, else TSL_EINVALID). */
TSL_API int tsl_db_set_remeasured(tsl_db *db, const tsl_db_remeasured *r, tsl_diag *diag);
/* The re-measurement of a record into out; TSL_ENOTFOUND when it has none. */
TSL_API int tsl_db_get_remeasured(tsl_db *db, int64_t record_id, tsl_db_remeasured *out,
                                  tsl_diag *diag);
/* The re-measured record of workload and target (NULL: any target) with
 * the lowest median: its record passed to fn (may be NULL), its figures
 * into out; TSL_ENOTFOUND when none was re-measured. */
TSL_API int tsl_db_best_remeasured(tsl_db *db, int64_t workload_id, const char *target,
                                   tsl_db_record_fn fn, void *user_data,
                                   tsl_db_remeasured *out, tsl_diag *diag);

typedef struct tsl_db_stats {
  uint32_t struct_size;
  int64_t records;   /* all records */
  int64_t workloads;
  int64_t errors;    /* failed records: status neither OK nor STOPPED */
  int64_t targets;   /* distinct target descriptions */
} tsl_db_stats;

TSL_API int tsl_db_get_stats(tsl_db *db, tsl_db_stats *out, tsl_diag *diag);

/* ---- moving records ------------------------------------------------------------ */

/* Every record as JSON lines, one object per record holding its workload
 * (hash, name, script, flops) and every field above but the ids.
 * A jsonl_path of "-" writes to standard output. */
TSL_API int tsl_db_export(tsl_db *db, const char *jsonl_path, tsl_diag *diag);
/* Add the records of a JSON-lines file (workloads created as needed);
 * records already present (same workload, target and decisions, and same
 * timestamp) are skipped. A malformed line is an error naming the file
 * and line, and nothing of the file is added (one transaction). */
TSL_API int tsl_db_import(tsl_db *db, const char *jsonl_path,
                          int64_t *n_added, int64_t *n_skipped,
                          tsl_diag *diag);
/* The checks of tsl_db_import on a JSON-lines file, without a database
 * (nothing is created or written): every line's fields, workload script,
 * trace and decisions. *n_records (may be NULL) gets the record count. */
TSL_API int tsl_db_check_import(const char *jsonl_path, int64_t *n_records,
                                tsl_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_DB_H */
