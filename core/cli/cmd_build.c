/*
 * `tessel build PROGRAM -o libNAME.so|NAME.o`: schedule (optional), lower
 * and export through the target's export_library: the library and a C
 * header next to it (libNAME.h / NAME.h) whose symbols are prefixed NAME_.
 */
#include "cli_target.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cli_build_usage[] =
    "usage: tessel build PROGRAM [--schedule SCRIPT] [--func NAME] [--target TARGET]\n"
    "                    [--threads N] -o libNAME.so|NAME.o\n"
    "       tessel build MODEL [--weights FILE] [--passes LIST] [--func NAME]\n"
    "                    [--target TARGET] [--threads N] [--tir FILE] -o libNAME.so\n"
    "\n"
    "Export the prim_funcs of PROGRAM (after the schedule script SCRIPT, if given)\n"
    "as a shared library or an object file, with a C header next to it: libNAME.h\n"
    "for libNAME.so, NAME.h for NAME.o. Every function F becomes NAME_F (one\n"
    "pointer per buffer parameter in order, symbolic sizes as int64_t, an int32_t\n"
    "status returned) plus NAME_F_packed; e.g. the prim_func main in libmm.so is\n"
    "mm_main. Link with -L<dir> -lNAME (and -Wl,-rpath,<dir> to run in place).\n"
    "\n"
    "  -o, --output FILE   libNAME.so or NAME.o; NAME must be a C identifier\n"
    "  --schedule SCRIPT   apply this schedule script first (see tessel schedule)\n"
    "  --func NAME         export only this function (and schedule it; default:\n"
    "                      the script applies to \"main\" or the only function,\n"
    "                      and every function is exported)\n"
    "  --target TARGET     target plugin and its options, \"NAME -key=value ...\"\n"
    "                      as tessel db stats prints targets, e.g. \"llvm\n"
    "                      -mcpu=x86-64-v3\" to build for another CPU (default:\n"
    "                      llvm; see tessel plugins and the target's README)\n"
    "  --threads N         threads for parallel loops (target default: all cores)\n"
    "\n"
    "A MODEL (an @I.ir_module with @R.function functions) is compiled ahead of\n"
    "time: the passes (default legalize,fuse,dce), its kernels, and its Relax\n"
    "function (--func, default main) as generated code, NAME_model_main, with the\n"
    "intermediate tensors planned into one workspace. The tensors of --weights\n"
    "(.safetensors, .npz, .npy) that name parameters, and the model's constants,\n"
    "are embedded as NAME_weights; the other parameters are the inputs. The\n"
    "header declares NAME_model_run(inputs, outputs[, sizes]) and describes\n"
    "each input and output.\n"
    "\n"
    "  --weights FILE      the weights to embed\n"
    "  --passes LIST       the graph passes before compiling (tessel pass --help)\n"
    "  --tir FILE          also write the compiled TensorIR module (the kernels and\n"
    "                      model_main, the generated main) as TVMScript\n"
    "\n"
    "exit status: 0 ok, 2 on a usage error or a failed stage (parse, schedule,\n"
    "lower, plugins, target, export: the message names the stage)\n";

static int is_ident(const char *s, size_t n) {
  if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '_')
      return 0;
  return 1;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* prefix and header path from -o; 0 when the name is not valid. */
static int output_names(const char *out, char *prefix, size_t pcap, char *header,
                        size_t hcap) {
  const char *slash = strrchr(out, '/');
  const char *base = slash ? slash + 1 : out;
  size_t dir_len = (size_t)(base - out);
  const char *name;
  size_t n;
  if (ends_with(base, ".so") && strncmp(base, "lib", 3) == 0) {
    name = base + 3;
    n = strlen(name) - 3;
  } else if (ends_with(base, ".o")) {
    name = base;
    n = strlen(name) - 2;
  } else {
    return 0;
  }
  if (!is_ident(name, n) || n + 1 > pcap)
    return 0;
  memcpy(prefix, name, n);
  prefix[n] = '\0';
  int w = snprintf(header, hcap, "%.*s%.*s.h", (int)dir_len, out,
                   (int)(strlen(base) - (ends_with(base, ".so") ? 3 : 2)), base);
  return w > 0 && (size_t)w < hcap;
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* A file with @R.function functions is a model (cmd_model_compiled.c);
 * 1 when this handled the build (or the file did not parse). */
static int build_model(cli_model_build_args *b, const char *weights, const char *script,
                       int *rc) {
  const char *path = b->path;
  if (!strcmp(path, "-"))
    return 0;
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *arena = tsl_arena_new(ctx);
  const tsl_model *m = NULL;
  tsl_weights *own = NULL;
  *rc = cli_load_model(arena, path, &m, &own);
  int handled = *rc != CLI_OK || m->n_rx_funcs;
  tsl_weights *w = NULL;
  tsl_diag d = {0};
  if (*rc == CLI_OK && m->n_rx_funcs) {
    if (script)
      *rc = cli_error("build", "--schedule applies to a program, not a model (tune the model "
                      "and build the tuned_model.py it writes)");
    else if (weights && tsl_weights_load(weights, &w, &d))
      *rc = cli_error("build", "%s", d.text);
    if (!*rc) {
      b->arena = arena;
      b->model = m;
      b->weights = w;
      *rc = cli_model_build(b);
    }
  } else if (*rc == CLI_OK && (weights || b->passes || b->tir)) {
    *rc = cli_error("build", "--weights, --passes and --tir apply to a model; %s has no "
                    "@R.function", path);
    handled = 1;
  }
  tsl_weights_free(w);
  tsl_weights_free(own);
  tsl_arena_free(arena);
  tsl_ctx_free(ctx);
  return handled;
}

int cli_build(int argc, char **argv) {
  const char *path = NULL, *script = NULL, *func = NULL, *target = "llvm", *out = NULL;
  const char *weights = NULL, *passes = NULL, *tir = NULL;
  int threads = 0;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    if (o[0] != '-' || !o[1]) {
      if (path)
        return cli_error("build", "more than one PROGRAM given ('%s' and '%s')", path, o);
      path = o;
      continue;
    }
    int known = !strcmp(o, "-o") || !strcmp(o, "--output") || !strcmp(o, "--schedule") ||
                !strcmp(o, "--func") || !strcmp(o, "--target") || !strcmp(o, "--threads") ||
                !strcmp(o, "--weights") || !strcmp(o, "--passes") || !strcmp(o, "--tir");
    if (!known)
      return cli_error("build", "unknown option '%s'\nnote: valid options: -o/--output, "
                                "--schedule, --func, --target, --threads, --weights, "
                                "--passes, --tir, --help", o);
    if (i + 1 >= argc)
      return cli_error("build", "option %s needs a value\nnote: see tessel build --help", o);
    const char *v = argv[++i];
    long long iv;
    if (!strcmp(o, "-o") || !strcmp(o, "--output"))
      out = v;
    else if (!strcmp(o, "--schedule"))
      script = v;
    else if (!strcmp(o, "--func"))
      func = v;
    else if (!strcmp(o, "--target"))
      target = v;
    else if (!strcmp(o, "--weights"))
      weights = v;
    else if (!strcmp(o, "--passes"))
      passes = v;
    else if (!strcmp(o, "--tir"))
      tir = v;
    else if (!cli_parse_int(v, 1, 1024, &iv))
      return cli_error("build", "--threads expects an integer from 1 to 1024, got '%s'", v);
    else
      threads = (int)iv;
  }
  if (!path)
    return cli_error("build", "missing PROGRAM\nnote: usage: tessel build PROGRAM -o libNAME.so");
  if (!out)
    return cli_error("build", "missing -o OUTPUT\nnote: e.g. -o libmm.so (a shared library) "
                              "or -o mm.o (an object file)");
  char prefix[256], header[4096];
  if (!output_names(out, prefix, sizeof prefix, header, sizeof header))
    return cli_error("build", "-o expects libNAME.so or NAME.o with NAME a C identifier "
                              "(letters, digits, '_'; not starting with a digit), got '%s'\n"
                              "note: the symbols are named NAME_<function>, e.g. -o libmm.so "
                              "gives mm_main", out);

  {
    /* A missing or read-only folder is reported before any work. */
    char dir[4096];
    const char *slash = strrchr(out, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".");
    if (access(dir, W_OK) != 0)
      return cli_error("build", "cannot write into the folder of '%s': %s", out, strerror(errno));
  }
  int mrc;
  cli_model_build_args mb = {.path = path, .func = func, .passes = passes, .target = target,
                            .out = out, .prefix = prefix, .header = header, .tir = tir,
                            .threads = threads};
  if (build_model(&mb, weights, script, &mrc))
    return mrc;
  cli_program p;
  cli_target t = {0};
  int rc = cli_program_load("build", path, script, func, &p);
  const tsl_lowered_module *lm = NULL;
  tsl_diag d = {0};
  if (rc == CLI_OK) {
    tsl_lower_opts lo = {sizeof lo, 1, 0};
    if (func) {
      const tsl_lowered_func *lf = NULL;
      if (tsl_lower_func(p.arena, p.func, &lo, &lf, &d) != TSL_OK) {
        rc = cli_stage_error("build", "lower", d.text);
      } else {
        const tsl_lowered_func **fs = TSL_NEW_ARRAY(p.arena, const tsl_lowered_func *, 1);
        fs[0] = lf;
        tsl_lowered_module *m = TSL_NEW(p.arena, tsl_lowered_module);
        m->struct_size = sizeof *m;
        m->n_funcs = 1;
        m->funcs = fs;
        lm = m;
      }
    } else if (tsl_lower_module(p.arena, p.module, &lo, &lm, &d) != TSL_OK) {
      rc = cli_stage_error("build", "lower", d.text);
    }
  }
  if (rc == CLI_OK)
    rc = cli_target_open("build", p.ctx, target, threads, &t);
  if (rc == CLI_OK) {
    if (!t.vt->export_library) {
      rc = cli_stage_error("build", "export", "this target cannot export libraries");
    } else {
      remove(header); /* so that a stale header is never taken for a new one */
      if (t.vt->export_library(t.t, lm, prefix, out, header, &d) != TSL_OK)
        rc = cli_stage_error("build", "export", d.text);
    }
  }
  if (rc == CLI_OK && !file_exists(header)) {
    /* A target that writes no header: the core's generator does. */
    char *text = tsl_export_header(lm, prefix);
    int err = cli_write_text(header, text);
    if (err) {
      char why[4200];
      snprintf(why, sizeof why, "cannot write %s: %s", header,
               text ? strerror(err) : "no header for these functions");
      rc = cli_stage_error("build", "export", why);
    }
    free(text);
  }
  if (rc == CLI_OK) {
    printf("wrote %s and %s:", out, header);
    for (uint32_t i = 0; i < lm->n_funcs; i++)
      printf(" %s_%s", prefix, lm->funcs[i]->name);
    printf("\n");
  }
  cli_target_close(&t);
  cli_program_free(&p);
  return rc;
}
