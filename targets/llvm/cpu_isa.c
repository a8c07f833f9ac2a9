/*
 * targets/llvm/cpu_isa.c — the instruction sets code for a CPU may use
 * (the CPU's own from cpu_tables.c, then mattr's +name / -name with LLVM's
 * implications), the host's, and the refusal of a target whose code this
 * host cannot run: a clear error instead of SIGILL in the first kernel.
 */
#include "llvm_internal.h"

#include <stdio.h>
#include <string.h>

/* LLVM's implications among the features of tll_isa_features: turning a
 * feature on turns on what it needs, turning one off turns off what needs
 * it (X86.td). */
static const struct {
  const char *feature, *needs;
} isa_needs[] = {
    {"ssse3", "sse3"},           {"sse4.1", "ssse3"},
    {"sse4.2", "sse4.1"},        {"avx", "sse4.2"},
    {"avx2", "avx"},             {"fma", "avx"},
    {"f16c", "avx"},             {"avx512f", "avx2"},
    {"avx512f", "fma"},          {"avx512f", "f16c"},
    {"avx512cd", "avx512f"},     {"avx512bw", "avx512f"},
    {"avx512dq", "avx512f"},     {"avx512vl", "avx512f"},
    {"avx512vnni", "avx512f"},   {"avxvnni", "avx2"},
    {"avx512bf16", "avx512bw"},  {"avx512fp16", "avx512bw"},
    {"avx512fp16", "avx512dq"},  {"avx512fp16", "avx512vl"},
    {"avx512vbmi", "avx512bw"},  {"amx-int8", "amx-tile"},
    {"amx-bf16", "amx-tile"},    {"amx-fp16", "amx-tile"},
};

int tll_isa_bit(const char *name, size_t n) {
  for (int i = 0; tll_isa_features[i]; i++)
    if (strlen(tll_isa_features[i]) == n && !strncmp(tll_isa_features[i], name, n))
      return i;
  return -1;
}

static uint32_t bit_of(const char *name) {
  int b = tll_isa_bit(name, strlen(name));
  return b < 0 ? 0 : 1u << b;
}

int tll_isa_has(uint32_t isa, const char *name) { return (isa & bit_of(name)) != 0; }

/* `isa` with `f` on (and what it needs) or off (and what needs it). */
static uint32_t isa_turn(uint32_t isa, uint32_t f, int on) {
  if (on)
    isa |= f;
  else
    isa &= ~f;
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < sizeof isa_needs / sizeof *isa_needs; i++) {
      uint32_t a = bit_of(isa_needs[i].feature), b = bit_of(isa_needs[i].needs);
      uint32_t next = on ? ((isa & a) ? isa | b : isa) : ((isa & b) ? isa : isa & ~a);
      changed |= next != isa;
      isa = next;
    }
  }
  return isa;
}

uint32_t tll_cpu_isa_of(const char *cpu) {
  for (int i = 0; cpu && tll_cpu_names[i]; i++)
    if (!strcmp(tll_cpu_names[i], cpu))
      return tll_cpu_isa[i];
  return 0;
}

uint32_t tll_isa_required(const char *cpu, const char *features) {
  uint32_t isa = tll_cpu_isa_of(cpu);
  for (const char *p = features; p && *p;) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    int b = len > 1 && (p[0] == '+' || p[0] == '-') ? tll_isa_bit(p + 1, len - 1) : -1;
    if (b >= 0)
      isa = isa_turn(isa, 1u << b, p[0] == '+');
    p += len + (c ? 1 : 0);
  }
  return isa;
}

uint32_t tll_isa_of_host(const char *host_features) {
  uint32_t isa = 0;
  for (int i = 0; tll_isa_features[i]; i++)
    if (tll_has_feature(host_features, tll_isa_features[i]))
      isa |= 1u << i;
  return isa;
}

/* CPUs named in the message as runnable alternatives when the host has
 * their instruction sets. */
static const char *const levels[] = {"x86-64-v2", "x86-64-v3", "x86-64-v4", NULL};

int tll_check_runnable(const tll_opts *o, const char *host_cpu,
                       const char *host_features, tsl_diag *diag) {
  if (o->cpu_is_host)
    return TSL_OK;
  uint32_t host = tll_isa_of_host(host_features);
  uint32_t missing = tll_isa_required(o->cpu, o->features) & ~host;
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
  if (host_cpu && *host_cpu && strcmp(host_cpu, "generic") &&
      !(tll_cpu_isa_of(host_cpu) & ~host))
    tsl_diag_append(diag, ", %s", host_cpu);
  tsl_diag_append(diag, ", or any CPU whose features this host has");
  return TSL_EUNSUPPORTED;
}
