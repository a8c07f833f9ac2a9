/*
 * The "random" cost model plugin, loaded through the real loader: its
 * registration, options, scores in [0, 1) that follow the seed, update
 * counting, and save/load continuing the same stream; missing, corrupt and
 * foreign files are clear errors that leave the model as it was.
 */
#include "search_common.h"

#include <jansson.h>
#include <unistd.h>

static const tsl_cost_model_vtable *vt;

static tsl_cost_model *create(uint64_t seed) {
  tsl_cost_model *m = NULL;
  tsl_diag d = {0};
  if (vt->create(NULL, 0, NULL, seed, &m, &d)) {
    printf("Bail out! create: %s\n", d.text);
    exit(1);
  }
  return m;
}

static void predict(tsl_cost_model *m, uint32_t n, double *out) {
  tsl_candidate cands[64];
  tsl_diag d = {0};
  memset(cands, 0, sizeof cands);
  for (uint32_t i = 0; i < n; i++)
    cands[i].struct_size = sizeof cands[i];
  if (vt->predict(m, n, cands, out, &d)) {
    printf("Bail out! predict: %s\n", d.text);
    exit(1);
  }
}

static int equal_scores(const double *a, const double *b, uint32_t n) {
  return memcmp(a, b, n * sizeof *a) == 0;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void test_scores(void) {
  tsl_cost_model *a = create(42), *b = create(42), *c = create(43);
  double sa[64], sb[64], sc[64];
  int in_range = 1, distinct = 0;
  double sum = 0;
  for (int round = 0; round < 32; round++) {
    predict(a, 64, sa);
    for (int i = 0; i < 64; i++) {
      in_range &= sa[i] >= 0.0 && sa[i] < 1.0;
      sum += sa[i];
      distinct += i > 0 && sa[i] != sa[i - 1];
    }
  }
  ok(in_range, "2048 scores lie in [0, 1)");
  ok(distinct > 2000, "  ... and vary (%d changes)", distinct);
  double mean = sum / 2048;
  ok(mean > 0.45 && mean < 0.55, "  ... with a mean near 1/2 (%.3f)", mean);

  tsl_cost_model *a2 = create(42);
  predict(a2, 64, sa);
  predict(b, 64, sb);
  predict(c, 64, sc);
  ok(equal_scores(sa, sb, 64), "equal seeds give equal scores");
  ok(!equal_scores(sa, sc, 64), "another seed gives other scores");
  predict(a2, 10, sa);
  predict(b, 4, sb);
  predict(b, 6, sb + 4);
  ok(equal_scores(sa, sb, 10), "the stream does not depend on batch sizes");
  ok(vt->ranks && vt->ranks(a) == 0, "random scores rank nothing (ranks 0)");
  vt->destroy(a);
  vt->destroy(a2);
  vt->destroy(b);
  vt->destroy(c);
}

static void test_save_load(const char *dir) {
  char path[256], bad[512];
  snprintf(path, sizeof path, "%s/model.json", dir);
  tsl_cost_model *a = create(7);
  double s[64], next_a[16], next_b[16];
  predict(a, 5, s);
  tsl_candidate cands[3] = {{.struct_size = sizeof(tsl_candidate)}};
  tsl_measured res[3] = {{.struct_size = sizeof(tsl_measured)}};
  tsl_diag d = {0};
  ok(vt->update(a, 3, cands, res, &d) == TSL_OK, "update succeeds");
  ok(vt->save(a, path, &d) == TSL_OK, "save writes %s", path);
  predict(a, 16, next_a);

  json_error_t err;
  json_t *root = json_load_file(path, 0, &err);
  ok(root && json_is_string(json_object_get(root, "seed")) &&
         strcmp(json_string_value(json_object_get(root, "seed")), "7") == 0,
     "  ... a JSON file holding the seed");
  ok(root && json_is_string(json_object_get(root, "updates")) &&
         strcmp(json_string_value(json_object_get(root, "updates")), "3") == 0,
     "  ... and the 3 samples update counted");
  json_decref(root);
  snprintf(bad, sizeof bad, "%s.tmp", path);
  ok(access(bad, F_OK) != 0, "  ... leaving no temporary file");

  tsl_cost_model *b = create(1000);
  ok(vt->load(b, path, &d) == TSL_OK, "load reads it into another model");
  predict(b, 16, next_b);
  ok(equal_scores(next_a, next_b, 16),
     "  ... which continues the saved stream exactly");

  /* Errors leave the model alone: compare with a twin. */
  tsl_cost_model *twin = create(1000);
  ok(vt->load(twin, path, &d) == TSL_OK, "a twin loads it too");
  predict(twin, 16, next_a); /* where b is now */
  predict(twin, 16, next_a);

  snprintf(bad, sizeof bad, "%s/missing.json", dir);
  memset(&d, 0, sizeof d);
  ok(vt->load(b, bad, &d) == TSL_EIO && has(&d, bad) &&
         has(&d, "No such file"),
     "loading a missing file is an I/O error naming the path and reason");
  snprintf(bad, sizeof bad, "%s/corrupt.json", dir);
  write_file(bad, "{\"format\": \"tessel-random-cost-model\", \"seed\": ");
  memset(&d, 0, sizeof d);
  ok(vt->load(b, bad, &d) == TSL_EPARSE && has(&d, bad) &&
         has(&d, "not a saved model"),
     "loading a truncated file is a parse error naming the path");
  write_file(bad, "[1, 2, 3]\n");
  memset(&d, 0, sizeof d);
  ok(vt->load(b, bad, &d) == TSL_EINVALID && has(&d, bad) &&
         has(&d, "\"format\": \"tessel-random-cost-model\""),
     "loading another JSON file names the expected format");
  write_file(bad, "{\"format\": \"tessel-random-cost-model\", \"version\": 1, "
                  "\"seed\": \"1\", \"state\": \"-5\", \"updates\": \"0\", "
                  "\"predicted\": \"0\"}");
  memset(&d, 0, sizeof d);
  ok(vt->load(b, bad, &d) == TSL_EINVALID && has(&d, bad) &&
         has(&d, "state"),
     "a bad field is an error naming the fields");
  write_file(bad, "{\"format\": \"tessel-random-cost-model\", \"version\": 9}");
  memset(&d, 0, sizeof d);
  ok(vt->load(b, bad, &d) == TSL_EUNSUPPORTED && has(&d, "valid: 1"),
     "a newer format version is refused");
  predict(b, 16, next_b);
  ok(equal_scores(next_a, next_b, 16),
     "after the failed loads the model predicts as before");

  snprintf(bad, sizeof bad, "%s/no/such/dir/model.json", dir);
  memset(&d, 0, sizeof d);
  ok(vt->save(b, bad, &d) == TSL_EIO && has(&d, bad),
     "saving into a missing folder is an I/O error naming the path");
  vt->destroy(a);
  vt->destroy(b);
  vt->destroy(twin);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_registry *reg = load_registry(ctx);
  uint32_t k = 0;
  const tsl_component *c = find_random(reg, TSL_COMPONENT_COST_MODEL, &k);
  ok(c != NULL, "the default search path registers cost_model 'random'");
  if (!c) {
    tsl_registry_free(reg);
    return tap_done();
  }
  ok(strstr(tsl_registry_path(reg, k),
            "/plugins/random/tessel-random-cost-model.so") != NULL,
     "  ... from the build tree's plugins/random");
  is_str(c->version, "0.1.0", "  ... version 0.1.0");
  ok(tsl_registry_abi(reg, k) == TSL_ABI_VERSION, "  ... built for this ABI");
  vt = c->vtable;
  ok(vt->struct_size >= sizeof(tsl_cost_model_vtable) && vt->create &&
         vt->destroy && vt->update && vt->predict && vt->save && vt->load,
     "  ... with a complete cost-model vtable");

  tsl_cost_model *m = NULL;
  tsl_diag d = {0};
  tsl_kv kv = {"learning_rate", "0.1"};
  ok(vt->create(NULL, 1, &kv, 1, &m, &d) == TSL_EINVALID && !m &&
         has(&d, "unknown option 'learning_rate'") && has(&d, "no options"),
     "an option is refused, naming it and saying none are taken");

  char dir[] = "/tmp/tessel-search-XXXXXX";
  if (!mkdtemp(dir)) {
    printf("Bail out! mkdtemp\n");
    return 1;
  }
  test_scores();
  test_save_load(dir);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    tap_diag("could not remove %s", dir);
  tsl_registry_free(reg);
  tsl_ctx_free(ctx);
  return tap_done();
}
