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

/* A series while loading: its points grow on the heap. */
typedef struct series_acc {
  report_series s;
  report_point *pts;
  size_t cap;
} series_acc;

typedef struct load_state {
  tsl_arena *arena;
  wl *wls;
  size_t n_wls, cap_wls;
  series_acc *acc;
  size_t n_acc, cap_acc;
  int oom;
} load_state;

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  size_t c = *cap ? *cap * 2 : 16;
  while (c < need)
    c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

static int on_workload(void *user, const tsl_db_workload_info *w) {
  load_state *st = user;
  if (grow((void **)&st->wls, &st->cap_wls, st->n_wls + 1, sizeof *st->wls)) {
    st->oom = 1;
    return 1;
  }
  st->wls[st->n_wls++] =
      (wl){w->id, tsl_arena_strdup(st->arena, w->name ? w->name : ""), w->flops};
  return 0;
}

static const wl *find_wl(const load_state *st, int64_t id) {
  for (size_t i = 0; i < st->n_wls; i++)
    if (st->wls[i].id == id)
      return &st->wls[i];
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
  series_acc *a = NULL;
  for (size_t i = 0; i < st->n_acc && !a; i++)
    if (st->acc[i].s.workload_id == r->workload_id && strcmp(st->acc[i].s.target, target) == 0)
      a = &st->acc[i];
  if (!a) {
    if (grow((void **)&st->acc, &st->cap_acc, st->n_acc + 1, sizeof *st->acc)) {
      st->oom = 1;
      return 1;
    }
    a = &st->acc[st->n_acc++];
    memset(a, 0, sizeof *a);
    const wl *w = find_wl(st, r->workload_id);
    a->s.workload_id = r->workload_id;
    a->s.workload = w ? w->name : "(unknown workload)";
    a->s.flops = w ? w->flops : 0;
    a->s.target = tsl_arena_strdup(st->arena, target);
  }
  if (grow((void **)&a->pts, &a->cap, a->s.n_points + 1, sizeof *a->pts)) {
    st->oom = 1;
    return 1;
  }
  a->pts[a->s.n_points++] =
      (report_point){r->id, r->status, r->latency_s, keep_text(st->arena, r->error)};
  return 0;
}

static void free_state(load_state *st) {
  for (size_t i = 0; i < st->n_acc; i++)
    free(st->acc[i].pts);
  free(st->acc);
  free(st->wls);
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
  tsl_db_stats stats = {.struct_size = sizeof stats};
  rc = tsl_db_get_stats(db, &stats, diag);
  if (rc == TSL_OK)
    rc = tsl_db_each_workload(db, on_workload, &st, diag);
  if (rc == TSL_OK && workload_id >= 0 && !find_wl(&st, workload_id)) {
    tsl_strbuf ids;
    tsl_strbuf_init(&ids);
    for (size_t i = 0; i < st.n_wls && i < 50; i++)
      tsl_strbuf_printf(&ids, "%s%lld (%s)", i ? ", " : "", (long long)st.wls[i].id,
                        st.wls[i].name);
    if (st.n_wls > 50)
      tsl_strbuf_append(&ids, ", ...");
    rc = tsl_diag_set(diag, TSL_ENOTFOUND, "%s: no workload with id %lld\nnote: %s%s",
                      db_path, (long long)workload_id,
                      st.n_wls ? "the workloads are " : "the database has no workload",
                      ids.len ? ids.data : "");
    tsl_strbuf_free(&ids);
  }
  if (rc == TSL_OK) {
    rc = tsl_db_each(db, workload_id >= 0 ? workload_id : -1, NULL, on_record, &st, diag);
    if (rc > 0) /* only our callbacks stop early, on out-of-memory */
      rc = TSL_ENOMEM;
  }
  if (rc == TSL_OK && st.oom)
    rc = TSL_ENOMEM;
  if (rc == TSL_ENOMEM)
    tsl_diag_set(diag, rc, "%s: out of memory while loading the records", db_path);
  tsl_db_close(db);
  if (rc != TSL_OK) {
    free_state(&st);
    report_loaded_free(out);
    return rc;
  }
  report_series *series = TSL_NEW_ARRAY(out->arena, report_series, st.n_acc ? st.n_acc : 1);
  for (size_t i = 0; i < st.n_acc; i++) {
    series[i] = st.acc[i].s;
    series[i].points =
        tsl_arena_dup(out->arena, st.acc[i].pts, st.acc[i].s.n_points * sizeof(report_point));
  }
  report_data *d = &out->data;
  d->db_path = tsl_arena_strdup(out->arena, db_path);
  d->records = stats.records;
  d->workloads = stats.workloads;
  d->errors = stats.errors;
  d->targets = stats.targets;
  d->series = series;
  d->n_series = st.n_acc;
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
