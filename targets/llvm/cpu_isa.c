/*
 * targets/llvm/cpu_isa.c — the instruction sets code for a CPU may use
 * (the CPU's own, then mattr's +name / -name with LLVM's implications, both
 * from the tables gen_cpu_tables.py generated), the host's, and the refusal
 * of a target whose code this host cannot run: a clear error instead of
 * SIGILL in the first kernel.
 */
#include "llvm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t bit_of(const char *name, size_t n) {
  int b = tll_name_index(tll_isa_features, name, n);
  return b < 0 ? 0 : (uint64_t)1 << b;
}

int tll_isa_has(uint64_t isa, const char *name) {
  return (isa & bit_of(name, strlen(name))) != 0;
}

/* What -mattr=+name turns on, with what it implies (0 for names LLVM does
 * not list, or that imply none of the sets). */
static uint64_t implied_by(const char *name, size_t n) {
  int i = tll_name_index(tll_feature_names, name, n);
  return i < 0 ? 0 : tll_feature_isa[i];
}

uint64_t tll_cpu_isa_of(const char *cpu) {
  int i = cpu ? tll_name_index(tll_cpu_names, cpu, strlen(cpu)) : -1;
  return i < 0 ? 0 : tll_cpu_isa[i];
}

/* `+name` adds what it implies; `-name` removes that set and every set
 * that implies it, as LLVM turns off a feature's dependents. A `-name`
 * outside the sets removes nothing here (LLVM may remove more), so the
 * check errs on refusing, never on running code the host lacks. */
uint64_t tll_isa_required(const char *cpu, const char *features) {
  uint64_t isa = tll_cpu_isa_of(cpu);
  for (const char *p = features; p && *p;) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    if (len > 1 && p[0] == '+') {
      isa |= implied_by(p + 1, len - 1);
    } else if (len > 1 && p[0] == '-') {
      uint64_t off = bit_of(p + 1, len - 1);
      for (int i = 0; off && tll_isa_features[i]; i++)
        if (implied_by(tll_isa_features[i], strlen(tll_isa_features[i])) & off)
          isa &= ~((uint64_t)1 << i);
    }
    p += len + (c ? 1 : 0);
  }
  return isa;
}

uint64_t tll_isa_of_host(const char *host_features) {
  uint64_t isa = 0;
  for (int i = 0; tll_isa_features[i]; i++)
    if (tll_has_feature(host_features, tll_isa_features[i]))
      isa |= (uint64_t)1 << i;
  return isa;
}

char *tll_isa_names(uint64_t isa) {
  size_t cap = 1;
  for (int i = 0; tll_isa_features[i]; i++)
    cap += strlen(tll_isa_features[i]) + 1;
  char *s = malloc(cap);
  if (!s)
    return NULL;
  s[0] = 0;
  for (int i = 0; tll_isa_features[i]; i++)
    if (isa >> i & 1)
      strcat(strcat(s, *s ? "," : ""), tll_isa_features[i]);
  return s;
}

/* CPUs named in the message as runnable alternatives when the host has
 * their instruction sets. */
static const char *const levels[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4", NULL};

int tll_check_runnable(const tll_opts *o, const char *host_cpu,
                       const char *host_features, tsl_diag *diag) {
  if (o->cpu_is_host)
    return TSL_OK;
  uint64_t host = tll_isa_of_host(host_features);
  uint64_t missing = tll_isa_required(o->cpu, o->features) & ~host;
  if (!missing)
    return TSL_OK;
  tsl_diag_set(diag, TSL_EUNSUPPORTED, "llvm target: mcpu=%s%s%s: this host's CPU (%s) "
               "cannot run code built for it: it lacks ",
               o->cpu, *o->features ? " mattr=" : "", o->features,
               host_cpu && *host_cpu ? host_cpu : "unknown to LLVM");
  for (int i = 0, n = 0; tll_isa_features[i]; i++)
    if (missing >> i & 1)
      tsl_diag_append(diag, "%s%s", n++ ? ", " : "", tll_isa_features[i]);
  tsl_diag_append(diag, "; valid here: native (the host's CPU and features)");
  for (int i = 0; levels[i]; i++)
    if (!(tll_cpu_isa_of(levels[i]) & ~host))
      tsl_diag_append(diag, ", %s", levels[i]);
  if (host_cpu && tll_name_index(tll_cpu_names, host_cpu, strlen(host_cpu)) >= 0 &&
      strcmp(host_cpu, "generic") && !(tll_cpu_isa_of(host_cpu) & ~host))
    tsl_diag_append(diag, ", %s", host_cpu);
  tsl_diag_append(diag, ", or any CPU whose features this host has");
  return TSL_EUNSUPPORTED;
}
