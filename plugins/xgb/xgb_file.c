/*
 * plugins/xgb/xgb_file.c — save and load: the samples (features and costs
 * per workload) and the booster, in one file, as TVM saves both (XGBoost
 * retrains from all the data). Layout, host byte order:
 *   "TSLXGB01"  u32 columns  u32 groups
 *   per group:  u64 workload  u32 samples
 *     per sample: f64 cost  u32 rows  f32 values[rows x columns]
 *   u64 model bytes, then the booster (XGBoost's JSON; 0 bytes: none)
 * Loading checks every count against the file's size and replaces the
 * model only when the whole file read back.
 */
#include "xgb_internal.h"

#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[8] = {'T', 'S', 'L', 'X', 'G', 'B', '0', '1'};

static int put(FILE *f, const void *p, size_t n) { return fwrite(p, 1, n, f) == n; }

int xgb_save(tsl_cost_model *m, const char *path, tsl_diag *diag) {
  bst_ulong len = 0;
  const char *model = NULL;
  if (m->booster && XGBoosterSaveModelToBuffer(m->booster, "{\"format\": \"json\"}", &len, &model))
    return xgb_fail(diag, "save");
  char tmp[4200]; /* a name of its own: runs saving one file at once each rename theirs */
  snprintf(tmp, sizeof tmp, "%.4000s.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd >= 0)
    (void)fchmod(fd, 0644); /* mkstemp's 0600 would keep a shared corpus from others */
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!f) {
    int e = errno;
    if (fd >= 0) {
      close(fd);
      remove(tmp);
    }
    return tsl_diag_set(diag, TSL_EIO, "cost model 'xgb': %s: cannot write: %s", tmp,
                        strerror(e));
  }
  uint32_t ncol = XGB_NCOL, ng = m->groups.len;
  int okw = put(f, magic, 8) && put(f, &ncol, 4) && put(f, &ng, 4);
  for (uint32_t g = 0; okw && g < ng; g++) {
    const xgb_group *gr = &TSL_VEC_AT(&m->groups, xgb_group, g);
    okw = put(f, &gr->workload, 8) && put(f, &gr->s.len, 4);
    for (uint32_t i = 0; okw && i < gr->s.len; i++) {
      const xgb_sample *s = &TSL_VEC_AT(&gr->s, xgb_sample, i);
      uint32_t rows = xgb_n_rows(s);
      okw = put(f, &s->cost, 8) && put(f, &rows, 4) &&
            put(f, s->rows.data, sizeof(float) * XGB_NCOL * rows);
    }
  }
  uint64_t ml = len;
  okw = okw && put(f, &ml, 8) && (!len || put(f, model, len));
  okw = fclose(f) == 0 && okw;
  if (!okw || rename(tmp, path)) {
    int e = errno;
    remove(tmp);
    return tsl_diag_set(diag, TSL_EIO, "cost model 'xgb': %s: cannot write: %s", path,
                        strerror(e));
  }
  return TSL_OK;
}

typedef struct reader {
  const unsigned char *p;
  size_t n, at;
} reader;

static int get(reader *r, void *out, size_t n) {
  if (r->n - r->at < n)
    return 0;
  memcpy(out, r->p + r->at, n);
  r->at += n;
  return 1;
}

static int bad(tsl_diag *diag, const char *path, const reader *r, const char *what) {
  return tsl_diag_set(diag, TSL_EINVALID,
                      "cost model 'xgb': %s: byte %zu: %s; valid: a file this model saved", path,
                      r->at, what);
}

int xgb_load(tsl_cost_model *m, const char *path, tsl_diag *diag) {
  char *text = NULL;
  size_t size = 0;
  tsl_diag rd;
  if (tsl_read_file(path, &text, &size, &rd))
    return tsl_diag_set(diag, TSL_EIO, "cost model 'xgb': %s", rd.text);
  reader r = {(const unsigned char *)text, size, 0};
  tsl_cost_model fresh = *m; /* options kept; data read into it */
  tsl_vec_init(&fresh.groups, sizeof(xgb_group), NULL);
  fresh.data_size = fresh.last_train_size = 0;
  fresh.booster = NULL;
  char mg[8];
  uint32_t ncol = 0, ng = 0;
  int rc = TSL_OK;
  if (!get(&r, mg, 8) || memcmp(mg, magic, 8))
    rc = bad(diag, path, &r, "not a saved 'xgb' model (no TSLXGB01 header)");
  else if (!get(&r, &ncol, 4) || ncol != XGB_NCOL)
    rc = bad(diag, path, &r, "features of another length than 164");
  else if (!get(&r, &ng, 4) || ng > r.n)
    rc = bad(diag, path, &r, "truncated or impossible number of workloads");
  for (uint32_t g = 0; !rc && g < ng; g++) {
    uint64_t w;
    uint32_t n;
    if (!get(&r, &w, 8) || !get(&r, &n, 4) || n > (r.n - r.at) / 12) {
      rc = bad(diag, path, &r, "truncated or impossible number of samples");
      break;
    }
    xgb_sample *s = calloc(n ? n : 1, sizeof *s);
    if (!s) {
      rc = tsl_diag_set(diag, TSL_ENOMEM, "cost model 'xgb': out of memory");
      break;
    }
    for (uint32_t i = 0; !rc && i < n; i++) {
      uint32_t rows;
      if (!get(&r, &s[i].cost, 8) || !get(&r, &rows, 4) ||
          rows > (r.n - r.at) / (sizeof(float) * XGB_NCOL) || !(s[i].cost > 0)) {
        rc = bad(diag, path, &r, "truncated sample");
        break;
      }
      tsl_vec_init(&s[i].rows, sizeof(float), NULL);
      tsl_vec_append(&s[i].rows, r.p + r.at, rows * XGB_NCOL);
      r.at += sizeof(float) * XGB_NCOL * rows;
    }
    if (!rc)
      xgb_add(&fresh, w, n, s);
    for (uint32_t i = 0; i < n; i++)
      tsl_vec_free(&s[i].rows);
    free(s);
  }
  uint64_t ml = 0;
  if (!rc && (!get(&r, &ml, 8) || ml != r.n - r.at))
    rc = bad(diag, path, &r, "the model's length does not match the file");
  if (!rc && ml) {
    rc = xgb_booster(&fresh, NULL, &fresh.booster, diag);
    /* XGBoost parses the trees on libgomp's default team whatever the
     * booster's nthread (which the load keeps): with that team at one
     * thread no pool starts, which forked measurement workers would
     * inherit without its threads and deadlock in (README, nthread); the
     * caller's default comes back */
    int team = omp_get_max_threads();
    omp_set_num_threads(1);
    if (!rc && XGBoosterLoadModelFromBuffer(fresh.booster, r.p + r.at, ml))
      rc = xgb_fail(diag, "load");
    omp_set_num_threads(team);
  }
  free(text);
  if (rc) {
    xgb_clear(&fresh);
    return rc;
  }
  xgb_clear(m);
  m->groups = fresh.groups;
  m->data_size = m->loaded = fresh.data_size;
  m->booster = fresh.booster;
  return TSL_OK;
}
