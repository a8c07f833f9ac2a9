/*
 * bench_model — whole models against PyTorch CPU (issue 30's evidence):
 * `./tessel bench model [--only mlp1,mlp64,resnet18,transformer]
 * [--trials-per-task N] [--rounds N] [--threads N] [--onnx]`.
 *
 * Per model (workloads/models; the MLP at batch 1 and 64): torch_ref.py
 * makes the weights and the input; `tessel run --target llvm` times the
 * untuned model (the legalized loops, compiled; the passes below: weights
 * bound, convolutions in NHWC, fused); `tessel tune` tunes every
 * task (trials per task x tasks, TVM's gradient scheduler) and writes the
 * tuned model; then the tuned model and PyTorch (torch_ref.py, the same
 * threads) are timed alternately, --rounds times, medians. The tuned
 * model's outputs are compared with PyTorch's. Everything goes through the
 * CLI and /usr/bin/python3 (python3-torch, python3-numpy). With --onnx
 * (issue 31's evidence) the model is PyTorch's own, exported to ONNX by
 * torch.onnx.export (torch_ref.py export), and tessel takes the .onnx file
 * itself: imported with its weights bound, then the same passes less
 * bind_params.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *root, *exe;
static char tmp[256];

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run `cmd`; its stdout's last line that starts with '{' into line. */
static int run_json(const char *cmd, char *line, size_t cap) {
  FILE *p = popen(cmd, "r");
  if (!p)
    return -1;
  char buf[65536];
  line[0] = '\0';
  while (fgets(buf, sizeof buf, p))
    if (buf[0] == '{')
      snprintf(line, cap, "%s", buf);
  int rc = pclose(p);
  return rc == 0 && line[0] ? 0 : -1;
}

static double json_num(const char *line, const char *key) {
  json_error_t e;
  json_t *o = json_loads(line, 0, &e);
  double v = o ? json_number_value(json_object_get(o, key)) : -1;
  json_decref(o);
  return v;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct result {
  const char *name;
  double untuned, tuned, torch, tune_s, max_abs, max_ref;
  int tasks, trials, ok;
} result;

/* The graph passes of every model: the weights bound, convolutions and
 * pooling in NHWC (their weight permutes folded at compile time), the
 * operators legalized and fused. */
static const char *passes = "bind_params,convert_layout,fold_constant,legalize,fuse,dce";
static const char onnx_passes[] = "convert_layout,fold_constant,legalize,fuse,dce";
static int onnx; /* --onnx: torch's exports, imported */

/* The distinct prim_funcs of the model after the passes: its tasks. */
static int count_tasks(const char *model, const char *weights) {
  char cmd[4096], buf[4096];
  snprintf(cmd, sizeof cmd, "%s pass %s%s%s --passes %s 2>/dev/null", exe, model,
           weights ? " --weights " : "", weights ? weights : "", passes);
  FILE *p = popen(cmd, "r");
  int n = 0;
  while (p && fgets(buf, sizeof buf, p))
    n += strstr(buf, "@T.prim_func") != NULL;
  if (p)
    pclose(p);
  return n;
}

static double tessel_time(const char *model, const char *weights, const char *dir, int threads,
                          const char *extra) {
  char cmd[2048], line[65536];
  snprintf(cmd, sizeof cmd, "%s run %s%s%s --input x=%s/x.npy --target llvm "
           "--threads %d --json --check none %s 2>/dev/null", exe, model,
           weights ? " --weights " : "", weights ? weights : "", dir, threads, extra);
  return run_json(cmd, line, sizeof line) ? -1 : json_num(line, "time_s");
}

static double torch_time(const char *name, const char *dir, int threads) {
  char cmd[2048], line[4096];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/bench/model/torch_ref.py time %s %s %d 2",
           root, name, dir, threads);
  return run_json(cmd, line, sizeof line) ? -1 : json_num(line, "latency_s");
}

static void bench_one(result *r, int per_task, int rounds, int threads) {
  char dir[512], cmd[4096], line[4096];
  snprintf(dir, sizeof dir, "%s/%s", tmp, r->name);
  mkdir(dir, 0755);
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/bench/model/torch_ref.py make %s "
           "%s/workloads/models %s", root, r->name, root, dir);
  if (system(cmd)) {
    fprintf(stderr, "bench model: %s: torch_ref.py make failed (python3-torch and "
            "python3-numpy installed?)\n", r->name);
    return;
  }
  if (onnx) {
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/bench/model/torch_ref.py export %s %s "
             "> %s/export.log 2>&1", root, r->name, dir, dir);
    if (system(cmd)) {
      fprintf(stderr, "bench model: %s: torch.onnx.export failed (%s/export.log)\n", r->name,
              dir);
      return;
    }
  }
  char model[600], weights_file[600];
  snprintf(model, sizeof model, "%s/model.%s", dir, onnx ? "onnx" : "py");
  snprintf(weights_file, sizeof weights_file, "%s/weights.npz", dir);
  const char *weights = onnx ? NULL : weights_file; /* an .onnx has its own */
  r->tasks = count_tasks(model, weights);
  r->trials = r->tasks * per_task;
  printf("%s: %d tasks, %d trials\n", r->name, r->tasks, r->trials);
  fflush(stdout);
  char pass_opt[200];
  snprintf(pass_opt, sizeof pass_opt, "--passes %s", passes);
  r->untuned = tessel_time(model, weights, dir, threads, pass_opt);
  /* tune */
  char cfg[600];
  snprintf(cfg, sizeof cfg, "%s/tune.yaml", dir);
  FILE *f = fopen(cfg, "w");
  if (!f)
    return;
  fprintf(f, "workload:\n  file: %s\n%s%s%s  passes: %s\ntasks:\n  scheduler: gradient\n"
          "  max_trials_global: %d\ntarget:\n  kind: llvm\n  threads: %d\nstrategy:\n"
          "  kind: evolutionary\n  trials: %d\n  batch: 16\ncost_model:\n  kind: xgb\n"
          "runner:\n  warmup: 0\n  number: 3\n  repeat: 1\n  min_repeat_ms: 20\n"
          "  timeout_s: 30\ndatabase: %s/work/tune.db\nseed: 1\n", model,
          weights ? "  weights: " : "", weights ? weights : "", weights ? "\n" : "", passes,
          r->trials, threads, per_task, dir);
  fclose(f);
  snprintf(cmd, sizeof cmd, "mkdir -p %s/work && %s tune %s > %s/tune.log 2>&1", dir, exe, cfg,
           dir);
  double t0 = now_s();
  int trc = system(cmd);
  r->tune_s = now_s() - t0;
  if (trc) {
    fprintf(stderr, "bench model: %s: tessel tune failed (%s/tune.log)\n", r->name, dir);
    return;
  }
  char tuned[600], out[700], constants[600];
  snprintf(tuned, sizeof tuned, "%s/work/tuned_model.py", dir);
  snprintf(constants, sizeof constants, "%s/work/tuned_model.constants.safetensors", dir);
  snprintf(out, sizeof out, "--output %s/tuned_out.npy", dir);
  double tt[16], pt[16];
  if (rounds > 16)
    rounds = 16;
  for (int k = 0; k < rounds; k++) { /* alternate which goes first */
    if (k % 2) {
      pt[k] = torch_time(r->name, dir, threads);
      tt[k] = tessel_time(tuned, constants, dir, threads, k ? "" : out);
    } else {
      tt[k] = tessel_time(tuned, constants, dir, threads, k ? "" : out);
      pt[k] = torch_time(r->name, dir, threads);
    }
  }
  r->tuned = median(tt, rounds);
  r->torch = median(pt, rounds);
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/bench/model/torch_ref.py compare "
           "%s/tuned_out.npy %s/torch_out.npy", root, dir, dir);
  if (!run_json(cmd, line, sizeof line)) {
    r->max_abs = json_num(line, "max_abs");
    r->max_ref = json_num(line, "max_ref");
    r->ok = r->max_abs >= 0 && r->max_abs <= 1e-3 * (r->max_ref > 1 ? r->max_ref : 1);
  }
}

int main(int argc, char **argv) {
  root = argc > 1 ? argv[1] : ".";
  const char *only = "mlp1,mlp64,resnet18,transformer";
  int per_task = 32, rounds = 3, threads = 2;
  for (int i = 2; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--onnx")) {
      onnx = 1;
      continue;
    }
    if (v && !strcmp(o, "--only"))
      only = v;
    else if (v && !strcmp(o, "--trials-per-task"))
      per_task = atoi(v);
    else if (v && !strcmp(o, "--rounds"))
      rounds = atoi(v);
    else if (v && !strcmp(o, "--threads"))
      threads = atoi(v);
    else {
      fprintf(stderr, "usage: ./tessel bench model [--only mlp1,mlp64,resnet18,transformer] "
              "[--trials-per-task 32] [--rounds 3] [--threads 2] [--onnx]\n");
      return 2;
    }
    i++;
  }
  if (per_task < 1 || rounds < 1 || threads < 1) {
    fprintf(stderr, "bench model: --trials-per-task, --rounds and --threads are positive\n");
    return 2;
  }
  static char exe_path[1024];
  snprintf(exe_path, sizeof exe_path, "%s/build/core/cli/tessel", root);
  exe = exe_path;
  snprintf(tmp, sizeof tmp, "/tmp/tessel-bench-model-XXXXXX");
  if (!mkdtemp(tmp))
    return 1;
  if (system("/usr/bin/python3 -c 'import torch, numpy' 2>/dev/null")) {
    fprintf(stderr, "bench model: needs Debian's python3-torch and python3-numpy "
            "(apt-get install python3-torch)\n");
    return 2;
  }
  char cpu[256] = "?";
  FILE *c = popen("lscpu | sed -n 's/^Model name: *//p' | head -1", "r");
  if (c && fgets(cpu, sizeof cpu, c))
    cpu[strcspn(cpu, "\n")] = '\0';
  if (c)
    pclose(c);
  if (onnx)
    passes = onnx_passes;
  printf("bench model: %s, %d threads, %d trials per task, %d rounds%s; work in %s\n", cpu,
         threads, per_task, rounds, onnx ? ", PyTorch's models through ONNX" : "", tmp);
  result res[4];
  int n = 0;
  const char *names[4] = {"mlp1", "mlp64", "resnet18", "transformer"};
  for (int i = 0; i < 4; i++)
    if (strstr(only, names[i])) {
      memset(&res[n], 0, sizeof res[n]);
      res[n].name = names[i];
      bench_one(&res[n], per_task, rounds, threads);
      n++;
    }
  printf("\n| model | tasks | trials | tuning s | untuned ms | tuned ms | PyTorch ms | "
         "PyTorch / tuned | max abs diff vs PyTorch |\n|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < n; i++) {
    result *r = &res[i];
    printf("| %s | %d | %d | %.1f | %.4g | %.4g | %.4g | %.2f | %.2g (of %.3g)%s |\n", r->name,
           r->tasks, r->trials, r->tune_s, r->untuned * 1e3, r->tuned * 1e3, r->torch * 1e3,
           r->tuned > 0 ? r->torch / r->tuned : 0, r->max_abs, r->max_ref,
           r->ok ? "" : " MISMATCH");
  }
  return 0;
}
