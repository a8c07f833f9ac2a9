/*
 * report_load.c — fills a report_data (report.h) from a tuning database:
 * the database counts, then every record in id order grouped into one
 * series per (workload, target) in order of first appearance. Strings are
 * copied into the report's arena (the database's are valid per call only).
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* Long error texts are cut when loaded: the page shows at most a few
 * hundred bytes of them. */
enum { ERROR_KEEP = 1024 };

typedef struct wl {
  int64_t id;
  const char *name;
  double flops;
} wl;

/* A series while loading: its points grow on the heap (s.n_points is set
 * at the end). */
typedef struct series_acc {
  report_series s;
  tsl_vec pts; /* report_point */
} series_acc;

typedef struct load_state {
  tsl_arena *arena;
  tsl_vec wls; /* wl */
  tsl_vec acc; /* series_acc */
} load_state;

static int on_workload(void *user, const tsl_db_workload_info *w) {
  load_state *st = user;
  *(wl *)tsl_vec_push(&st->wls) =
      (wl){w->id, tsl_arena_strdup(st->arena, w->name ? w->name : ""), w->flops};
  return 0;
}

static const wl *find_wl(const load_state *st, int64_t id) {
  const wl *wls = TSL_VEC_DATA(&st->wls, const wl);
  for (uint32_t i = 0; i < st->wls.len; i++)
    if (wls[i].id == id)
      return &wls[i];
  return NULL;
}

/* A copy of at most ERROR_KEEP bytes of `s`, cut at a UTF-8 boundary. */
static const char *keep_text(tsl_arena *arena, const char *s) {
  if (!s || !*s)
    return NULL;
  size_t n = strlen(s);
  if (n <= ERROR_KEEP)
    return tsl_arena_strdup(arena, s);
  n = ERROR_KEEP;
  while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
    n--;
  char *c = tsl_arena_alloc(arena, n + 1);
  memcpy(c, s, n);
  return c;
}

static int on_record(void *user, const tsl_db_record *r) {
  load_state *st = user;
  const char *target = r->target ? r->target : "";
  series_acc *accs = TSL_VEC_DATA(&st->acc, series_acc), *a = NULL;
  for (uint32_t i = 0; i < st->acc.len && !a; i++)
    if (accs[i].s.workload_id == r->workload_id && strcmp(accs[i].s.target, target) == 0)
      a = &accs[i];
  if (!a) {
    a = tsl_vec_push(&st->acc);
    tsl_vec_init(&a->pts, sizeof(report_point), NULL);
    const wl *w = find_wl(st, r->workload_id);
    a->s.workload_id = r->workload_id;
    a->s.workload = w ? w->name : "(unknown workload)";
    a->s.flops = w ? w->flops : 0;
    a->s.target = tsl_arena_strdup(st->arena, target);
  }
  *(report_point *)tsl_vec_push(&a->pts) =
      (report_point){r->id, r->status, r->latency_s, keep_text(st->arena, r->error)};
  return 0;
}

static void free_state(load_state *st) {
  for (uint32_t i = 0; i < st->acc.len; i++)
    tsl_vec_free(&TSL_VEC_AT(&st->acc, series_acc, i).pts);
  tsl_vec_free(&st->acc);
  tsl_vec_free(&st->wls);
}

int report_load(const char *db_path, int64_t workload_id, report_loaded *out,
                tsl_diag *diag) {
  memset(out, 0, sizeof *out);
  tsl_db *db = NULL;
  int rc = tsl_db_open(db_path, TSL_DB_READONLY, &db, diag);
  if (rc != TSL_OK)
    return rc;
  out->ctx = tsl_ctx_new();
  out->arena = out->ctx ? tsl_arena_new(out->ctx) : NULL;
  if (!out->arena) {
    tsl_db_close(db);
    report_loaded_free(out);
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  }
  load_state st = {.arena = out->arena};
  tsl_vec_init(&st.wls, sizeof(wl), NULL);
  tsl_vec_init(&st.acc, sizeof(series_acc), NULL);
  tsl_db_stats stats = {.struct_size = sizeof stats};
  rc = tsl_db_get_stats(db, &stats, diag);
  if (rc == TSL_OK)
    rc = tsl_db_each_workload(db, on_workload, &st, diag);
  if (rc == TSL_OK && workload_id >= 0 && !find_wl(&st, workload_id)) {
    tsl_strbuf ids;
    tsl_strbuf_init(&ids);
    const wl *wls = TSL_VEC_DATA(&st.wls, const wl);
    for (uint32_t i = 0; i < st.wls.len && i < 50; i++)
      tsl_strbuf_printf(&ids, "%s%lld (%s)", i ? ", " : "", (long long)wls[i].id,
                        wls[i].name);
    if (st.wls.len > 50)
      tsl_strbuf_append(&ids, ", ...");
    rc = tsl_diag_set(diag, TSL_ENOTFOUND, "%s: no workload with id %lld\nnote: %s%s",
                      db_path, (long long)workload_id,
                      st.wls.len ? "the workloads are " : "the database has no workload",
                      ids.len ? ids.data : "");
    tsl_strbuf_free(&ids);
  }
  if (rc == TSL_OK)
    rc = tsl_db_each(db, workload_id >= 0 ? workload_id : -1, NULL, on_record, &st, diag);
  if (rc == TSL_ENOMEM)
    tsl_diag_set(diag, rc, "%s: out of memory while loading the records", db_path);
  series_acc *acc = TSL_VEC_DATA(&st.acc, series_acc);
  for (uint32_t i = 0; rc == TSL_OK && i < st.acc.len; i++) {
    tsl_db_remeasured rm;
    tsl_diag rd = {0};
    report_series *s = &acc[i].s;
    if (tsl_db_best_remeasured(db, s->workload_id, s->target, NULL, NULL, &rm, &rd) == TSL_OK) {
      s->remeasured_record = rm.record_id;
      s->remeasured_s = rm.median_s;
      s->remeasured_min_s = rm.min_s;
      s->remeasured_max_s = rm.max_s;
      s->remeasured_rounds = rm.rounds;
    }
  }
  tsl_db_close(db);
  if (rc != TSL_OK) {
    free_state(&st);
    report_loaded_free(out);
    return rc;
  }
  uint32_t n_acc = st.acc.len;
  const series_acc *accs = TSL_VEC_DATA(&st.acc, const series_acc);
  report_series *series = TSL_NEW_ARRAY(out->arena, report_series, n_acc ? n_acc : 1);
  for (uint32_t i = 0; i < n_acc; i++) {
    series[i] = accs[i].s;
    series[i].points = tsl_vec_dup(&accs[i].pts, out->arena);
    series[i].n_points = accs[i].pts.len;
  }
  report_data *d = &out->data;
  d->db_path = tsl_arena_strdup(out->arena, db_path);
  d->records = stats.records;
  d->workloads = stats.workloads;
  d->errors = stats.errors;
  d->targets = stats.targets;
  d->series = series;
  d->n_series = n_acc;
  if (workload_id >= 0) {
    tsl_strbuf f;
    tsl_strbuf_init(&f);
    tsl_strbuf_printf(&f, "workload %lld only", (long long)workload_id);
    d->filter = tsl_arena_strdup(out->arena, f.data);
    tsl_strbuf_free(&f);
  }
  free_state(&st);
  return TSL_OK;
}

void report_loaded_free(report_loaded *r) {
  if (!r)
    return;
  tsl_arena_free(r->arena);
  tsl_ctx_free(r->ctx);
  memset(r, 0, sizeof *r);
}
