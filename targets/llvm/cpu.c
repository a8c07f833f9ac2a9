/*
 * targets/llvm/cpu.c — target options: parsing and validation, host CPU
 * detection, the describe() line, and target machines.
 *
 * Options: mcpu (default: $TESSEL_LLVM_MCPU, else the host CPU; "native" =
 * host, "generic" when LLVM does not know the host's), mattr (default:
 * the host's features when the CPU is the host's, else the CPU's own),
 * threads (default: online cores), opt-level (0..3, default 3),
 * vector-width (128/256/512; default 512 when AVX-512F is on, else LLVM's
 * choice), fast-math (0/1, default 0), llvm-unroll (0/1, default 0),
 * vector-math (0/1, default 1: math functions of vectors call libmvec).
 */
#include "llvm_internal.h"

#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const valid_keys =
    "mcpu, mattr, threads, opt-level, vector-width, fast-math, llvm-unroll, vector-math";

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* LLVM's instruction schedulers build a dependence graph whose memory
 * chains grow quadratically with the loads and stores of a block, up to
 * "dag-maps-huge-region" (1000) of them. A kernel that
 * pragma_auto_unroll_max_step unrolled into one block of hundreds of vector
 * loads and stores spent most of its build there (a 1024 matmul candidate
 * unrolled 512 steps: 4.4 s of 4.8 s). Set once per process, before the
 * first compilation (README.md, "Compile time"). */
static const char *const llvm_args[] = {"tessel", "-dag-maps-huge-region=200"};

static void init_native(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMParseCommandLineOptions(2, llvm_args, NULL);
}

void tll_llvm_init(void) { pthread_once(&init_once, init_native); }

int tll_name_index(const char *const *list, const char *s, size_t n) {
  for (int i = 0; list[i]; i++)
    if (strlen(list[i]) == n && strncmp(list[i], s, n) == 0)
      return i;
  return -1;
}

static int in_list(const char *const *list, const char *s, size_t n) {
  return tll_name_index(list, s, n) >= 0;
}

int tll_has_feature(const char *features, const char *name) {
  size_t n = strlen(name);
  int on = 0;
  for (const char *p = features; p && *p;) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    if (len == n + 1 && (p[0] == '+' || p[0] == '-') &&
        strncmp(p + 1, name, n) == 0)
      on = p[0] == '+';
    p += len + (c ? 1 : 0);
  }
  return on;
}

static void append_list(tsl_diag *diag, const char *const *list) {
  for (int i = 0; list[i]; i++)
    tsl_diag_append(diag, "%s%s", i ? ", " : "", list[i]);
}

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end = NULL;
  if (!s || !*s)
    return 0;
  long v = strtol(s, &end, 10);
  if (*end || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

static int check_features(const char *s, tsl_diag *diag) {
  for (const char *p = s; *p;) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    if (len < 2 || (p[0] != '+' && p[0] != '-') ||
        !in_list(tll_feature_names, p + 1, len - 1)) {
      tsl_diag_set(diag, TSL_EINVALID,
                   "llvm target: option mattr: bad feature '%.*s' in '%s'; "
                   "write a comma-separated list of +name or -name (e.g. "
                   "+avx512f,-avx512vl) with names from: ",
                   (int)len, p, s);
      append_list(diag, tll_feature_names);
      return TSL_EINVALID;
    }
    p += len + (c ? 1 : 0);
  }
  return TSL_OK;
}

static int check_cpu(const char *what, const char *v, tsl_diag *diag) {
  if (!strcmp(v, "native") || in_list(tll_cpu_names, v, strlen(v)))
    return TSL_OK;
  tsl_diag_set(diag, TSL_EINVALID, "llvm target: %s: unknown CPU '%s'; valid: native, ", what, v);
  append_list(diag, tll_cpu_names);
  return TSL_EINVALID;
}

/* The options against this host as LLVM reports it; with `runnable`,
 * code this host cannot run is refused too. */
static int parse_on_host(uint32_t n, const tsl_kv *kv, int runnable, tll_opts *out,
                         tsl_diag *diag) {
  char *name = LLVMGetHostCPUName(), *llvm_features = LLVMGetHostCPUFeatures();
  char *features = tll_amx_host_features(llvm_features ? llvm_features : "");
  LLVMDisposeMessage(llvm_features);
  if (!features) {
    LLVMDisposeMessage(name);
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  }
  tll_host host = {name ? name : "", features,
                   getenv("TESSEL_LLVM_MCPU")};
  int rc = tll_opts_parse_for(n, kv, &host, out, diag);
  if (!rc && runnable && (rc = tll_check_runnable(out, host.cpu, host.features, diag)))
    tll_opts_free(out);
  LLVMDisposeMessage(name);
  free(features);
  return rc;
}

int tll_opts_parse(uint32_t n, const tsl_kv *kv, tll_opts *out, tsl_diag *diag) {
  return parse_on_host(n, kv, 0, out, diag);
}

int tll_opts_parse_runnable(uint32_t n, const tsl_kv *kv, tll_opts *out, tsl_diag *diag) {
  return parse_on_host(n, kv, 1, out, diag);
}

/* The CPU and feature string of `cpu` (NULL or "native": the host's, and
 * "generic" for a host CPU LLVM does not know, whose code still uses every
 * feature the host reports) with mattr `attr`; returns 1 for the host. */
static int resolve_cpu(const char *cpu, const char *attr, const tll_host *hw, tll_opts *out) {
  int host = !cpu || !strcmp(cpu, "native");
  const char *name = host ? hw->cpu : cpu;
  if (host && !(name && in_list(tll_cpu_names, name, strlen(name))))
    name = "generic";
  out->cpu = strdup(name);
  out->features = strdup(attr ? attr : host ? hw->features : "");
  return host;
}

/* A 0/1 option into *out; else the error naming it. */
static int parse_flag(const char *key, const char *v, long *out, tsl_diag *diag) {
  if (parse_int(v, 0, 1, out))
    return TSL_OK;
  return tsl_diag_set(diag, TSL_EINVALID, "llvm target: option %s: '%s' is not 0 or 1", key, v);
}

int tll_opts_parse_for(uint32_t n, const tsl_kv *kv, const tll_host *hw,
                       tll_opts *out, tsl_diag *diag) {
  const char *cpu = NULL, *attr = NULL;
  long threads = sysconf(_SC_NPROCESSORS_ONLN), level = 3, width = -1,
       fast = 0, llvm_unroll = 0, vector_math = 1;
  if (threads < 1)
    threads = 1;
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < n; i++) {
    const char *k = kv[i].key ? kv[i].key : "", *v = kv[i].value;
    if (!v)
      return tsl_diag_set(diag, TSL_EINVALID,
                          "llvm target: option '%s' has no value", k);
    if (!strcmp(k, "mcpu")) {
      if (check_cpu("option mcpu", v, diag))
        return TSL_EINVALID;
      cpu = v;
    } else if (!strcmp(k, "mattr")) {
      if (check_features(v, diag))
        return TSL_EINVALID;
      attr = v;
    } else if (!strcmp(k, "threads")) {
      if (!parse_int(v, 1, 1024, &threads))
        return tsl_diag_set(diag, TSL_EINVALID,
                            "llvm target: option threads: '%s' is not an "
                            "integer from 1 to 1024",
                            v);
    } else if (!strcmp(k, "opt-level")) {
      if (!parse_int(v, 0, 3, &level))
        return tsl_diag_set(diag, TSL_EINVALID,
                            "llvm target: option opt-level: '%s' is not one "
                            "of 0, 1, 2, 3",
                            v);
    } else if (!strcmp(k, "vector-width")) {
      if (!parse_int(v, 0, 512, &width) ||
          (width != 0 && width != 128 && width != 256 && width != 512))
        return tsl_diag_set(diag, TSL_EINVALID,
                            "llvm target: option vector-width: '%s' is not "
                            "one of 128, 256, 512 (bits), or 0 for LLVM's "
                            "choice",
                            v);
    } else if (!strcmp(k, "fast-math")) {
      if (parse_flag(k, v, &fast, diag))
        return TSL_EINVALID;
    } else if (!strcmp(k, "llvm-unroll")) {
      if (parse_flag(k, v, &llvm_unroll, diag))
        return TSL_EINVALID;
    } else if (!strcmp(k, "vector-math")) {
      if (parse_flag(k, v, &vector_math, diag))
        return TSL_EINVALID;
    } else {
      return tsl_diag_set(diag, TSL_EINVALID,
                          "llvm target: unknown option '%s'; valid options: "
                          "%s",
                          k, valid_keys);
    }
  }
  if (!cpu && hw->default_cpu && *hw->default_cpu) {
    if (check_cpu("TESSEL_LLVM_MCPU (the default of option mcpu)", hw->default_cpu, diag))
      return TSL_EINVALID;
    cpu = hw->default_cpu;
  }
  int host = resolve_cpu(cpu, attr, hw, out);
  out->cpu_is_host = host && !attr;
  out->threads = (int32_t)threads;
  out->opt_level = (int32_t)level;
  out->fast_math = (int32_t)fast;
  out->llvm_unroll = (int32_t)llvm_unroll;
  out->vector_math = (int32_t)vector_math;
  if (!out->cpu || !out->features) {
    tll_opts_free(out);
    return tsl_diag_set(diag, TSL_ENOMEM, "llvm target: out of memory");
  }
  if (width < 0)
    width = tll_isa_has(tll_isa_required(out->cpu, out->features), "avx512f") ? 512 : 0;
  out->vector_width = (int32_t)width;
  return TSL_OK;
}

void tll_opts_free(tll_opts *o) {
  free(o->cpu);
  free(o->features);
  o->cpu = o->features = NULL;
}

char *tll_opts_describe(const tll_opts *o) {
  char attr[128] = "";
  size_t n = strlen(o->features);
  if (n > 0 && n <= 48) {
    snprintf(attr, sizeof attr, " -mattr=%s", o->features);
  } else if (n > 48) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
      h = (h ^ (unsigned char)o->features[i]) * 1099511628211ull;
    snprintf(attr, sizeof attr, " -mattr=%s#%016llx",
             o->cpu_is_host ? "host" : "", (unsigned long long)h);
  }
  char width[32] = "", fast[32] = "", unroll[32] = "", vmath[32] = "";
  if (o->vector_width)
    snprintf(width, sizeof width, " -vector-width=%d", (int)o->vector_width);
  if (o->fast_math)
    snprintf(fast, sizeof fast, " -fast-math=1");
  if (o->llvm_unroll)
    snprintf(unroll, sizeof unroll, " -llvm-unroll=1");
  if (!o->vector_math) /* the default is left out: older records' targets */
    snprintf(vmath, sizeof vmath, " -vector-math=0");
  size_t cap = strlen(o->cpu) + sizeof attr + 128;
  char *s = malloc(cap);
  if (s)
    snprintf(s, cap, "llvm -mcpu=%s%s -threads=%d -opt-level=%d%s%s%s%s",
             o->cpu, attr, (int)o->threads, (int)o->opt_level, width, fast,
             unroll, vmath);
  return s;
}

int tll_target_machine(const tll_opts *o, int pic, LLVMTargetMachineRef *out,
                       tsl_diag *diag) {
  tll_llvm_init();
  char *triple = LLVMGetDefaultTargetTriple();
  char *err = NULL;
  LLVMTargetRef target = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    int st = tsl_diag_set(diag, TSL_EUNSUPPORTED,
                          "llvm target: no LLVM target for triple '%s': %s",
                          triple, err ? err : "?");
    LLVMDisposeMessage(err);
    LLVMDisposeMessage(triple);
    return st;
  }
  static const LLVMCodeGenOptLevel levels[] = {
      LLVMCodeGenLevelNone, LLVMCodeGenLevelLess, LLVMCodeGenLevelDefault,
      LLVMCodeGenLevelAggressive};
  *out = LLVMCreateTargetMachine(
      target, triple, o->cpu, o->features, levels[o->opt_level & 3],
      pic ? LLVMRelocPIC : LLVMRelocDefault,
      pic ? LLVMCodeModelDefault : LLVMCodeModelJITDefault);
  LLVMDisposeMessage(triple);
  if (!*out)
    return tsl_diag_set(diag, TSL_EUNSUPPORTED,
                        "llvm target: cannot create a target machine for "
                        "-mcpu=%s",
                        o->cpu);
  return TSL_OK;
}
