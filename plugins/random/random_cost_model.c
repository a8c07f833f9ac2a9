/*
 * plugins/random/random_cost_model.c — the "random" cost model: uniform
 * scores in [0, 1) from a splitmix64 stream seeded by the run's seed, the
 * baseline the learned models are compared with. update only counts
 * samples. save/load keep the seed, the generator state and the counters
 * as a small JSON file, so a loaded model predicts what the saved one
 * would have predicted next.
 */
#include "random_cost_model.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tsl_cost_model {
  uint64_t seed;
  uint64_t state;
  uint64_t n_updates;   /* measured candidates seen */
  uint64_t n_predicted; /* scores handed out */
};

static int rcm_create(void *user_data, uint32_t n_opts, const tsl_kv *opts,
                      uint64_t seed, tsl_cost_model **out, tsl_diag *diag) {
  (void)user_data;
  *out = NULL;
  if (n_opts > 0)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "cost model 'random': unknown option '%s'; valid: "
                        "none (this model takes no options)",
                        opts[0].key ? opts[0].key : "(null)");
  tsl_cost_model *m = calloc(1, sizeof *m);
  if (!m)
    return tsl_diag_set(diag, TSL_ENOMEM, "cost model 'random': out of memory");
  m->seed = m->state = seed;
  *out = m;
  return TSL_OK;
}

static void rcm_destroy(tsl_cost_model *m) { free(m); }

static int rcm_update(tsl_cost_model *m, uint32_t n,
                      const tsl_candidate *cands, const tsl_measured *results,
                      tsl_diag *diag) {
  (void)cands, (void)results, (void)diag;
  m->n_updates += n;
  return TSL_OK;
}

static int rcm_predict(tsl_cost_model *m, uint32_t n,
                       const tsl_candidate *cands, double *scores,
                       tsl_diag *diag) {
  (void)cands, (void)diag;
  for (uint32_t i = 0; i < n; i++)
    scores[i] = tsl_rand_unit(&m->state);
  m->n_predicted += n;
  return TSL_OK;
}

/* 64-bit values are saved as decimal strings: JSON integers in jansson are
 * signed. */
static json_t *u64_json(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%" PRIu64, v);
  return json_string(buf);
}

static int rcm_save(tsl_cost_model *m, const char *path, tsl_diag *diag) {
  json_t *root = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o}", "format",
                           RCM_FORMAT, "version", RCM_FORMAT_VERSION, "seed",
                           u64_json(m->seed), "state", u64_json(m->state),
                           "updates", u64_json(m->n_updates), "predicted",
                           u64_json(m->n_predicted));
  char *text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
  json_decref(root);
  if (!text)
    return tsl_diag_set(diag, TSL_ENOMEM, "cost model 'random': out of memory");
  /* Write a sibling file and rename it, so a crash never leaves a torn one. */
  size_t n = strlen(path) + 8;
  char *tmp = malloc(n);
  if (!tmp) {
    free(text);
    return tsl_diag_set(diag, TSL_ENOMEM, "cost model 'random': out of memory");
  }
  snprintf(tmp, n, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  int err = errno;
  if (f && fclose(f) != 0 && ok) {
    ok = 0;
    err = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = 0;
    err = errno;
  }
  if (!ok)
    remove(tmp);
  free(tmp);
  free(text);
  if (!ok)
    return tsl_diag_set(diag, TSL_EIO, "cost model 'random': cannot write %s: %s",
                        path, strerror(err));
  return TSL_OK;
}

static int get_u64(json_t *root, const char *key, uint64_t *out) {
  json_t *v = json_object_get(root, key);
  const char *s = json_is_string(v) ? json_string_value(v) : NULL;
  if (!s || !*s || strspn(s, "0123456789") != strlen(s))
    return -1;
  errno = 0;
  unsigned long long x = strtoull(s, NULL, 10);
  if (errno)
    return -1;
  *out = x;
  return 0;
}

static int rcm_load(tsl_cost_model *m, const char *path, tsl_diag *diag) {
  json_error_t err;
  json_t *root = json_load_file(path, 0, &err);
  if (!root) {
    FILE *f = fopen(path, "r");
    if (!f)
      return tsl_diag_set(diag, TSL_EIO,
                          "cost model 'random': cannot read %s: %s", path,
                          strerror(errno));
    fclose(f);
    return tsl_diag_set(diag, TSL_EPARSE,
                        "cost model 'random': %s:%d:%d: not a saved model: %s",
                        path, err.line, err.column, err.text);
  }
  json_t *fmt = json_object_get(root, "format");
  json_t *ver = json_object_get(root, "version");
  int rc = TSL_OK;
  tsl_cost_model next = {0};
  if (!json_is_string(fmt) || strcmp(json_string_value(fmt), RCM_FORMAT) != 0)
    rc = tsl_diag_set(diag, TSL_EINVALID,
                      "cost model 'random': %s: not a saved random cost "
                      "model; valid: a JSON object with \"format\": \"%s\"",
                      path, RCM_FORMAT);
  else if (!json_is_integer(ver) ||
           json_integer_value(ver) != RCM_FORMAT_VERSION)
    rc = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                      "cost model 'random': %s: format version not supported; "
                      "valid: %d",
                      path, RCM_FORMAT_VERSION);
  else if (get_u64(root, "seed", &next.seed) ||
           get_u64(root, "state", &next.state) ||
           get_u64(root, "updates", &next.n_updates) ||
           get_u64(root, "predicted", &next.n_predicted))
    rc = tsl_diag_set(diag, TSL_EINVALID,
                      "cost model 'random': %s: fields seed, state, updates "
                      "and predicted must be decimal strings of unsigned "
                      "64-bit integers",
                      path);
  json_decref(root);
  if (rc == TSL_OK)
    *m = next;
  return rc;
}

/* random scores rank nothing */
static int32_t rcm_ranks(const tsl_cost_model *m) {
  (void)m;
  return 0;
}

const tsl_cost_model_vtable rcm_vtable = {
    .struct_size = sizeof(tsl_cost_model_vtable),
    .create = rcm_create,
    .destroy = rcm_destroy,
    .update = rcm_update,
    .predict = rcm_predict,
    .save = rcm_save,
    .load = rcm_load,
    .ranks = rcm_ranks,
};
