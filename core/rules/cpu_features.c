/*
 * CPU features as the rules see them: the target's list
 * (tsl_rule_target.cpu_features), the test of a requirement against it,
 * and this machine's list, read once with the compiler's CPU probe.
 */
#include "rules_internal.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

const char *tsl_rule_target_features(const tsl_rule_target *t) {
  const size_t need = offsetof(tsl_rule_target, cpu_features) + sizeof(char *);
  return t && t->struct_size >= need ? t->cpu_features : NULL;
}

/* 1 when the comma-separated `list` has the n characters `name`. */
static int list_has(const char *list, const char *name, size_t n) {
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && !strncmp(p, name, n))
      return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

int tsl_cpu_features_have(const char *features, const char *needs) {
  if (!features || !needs)
    return 1;
  for (const char *p = needs; *p;) {
    size_t len = strcspn(p, ",");
    if (len && !list_has(features, p, len))
      return 0;
    p += len + (p[len] == ',');
  }
  return 1;
}

static char host[256];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void add(const char *name, int on) {
  size_t n = strlen(host);
  if (on && n + strlen(name) + 2 < sizeof host)
    strcat(strcat(host, n ? "," : ""), name);
}

static void read_host(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  add("avx2", __builtin_cpu_supports("avx2"));
  add("fma", __builtin_cpu_supports("fma"));
  add("avx512f", __builtin_cpu_supports("avx512f"));
  add("avx512bw", __builtin_cpu_supports("avx512bw"));
  add("avx512vl", __builtin_cpu_supports("avx512vl"));
  add("avx512vnni", __builtin_cpu_supports("avx512vnni"));
  add("avx512bf16", __builtin_cpu_supports("avx512bf16"));
  add("avxvnni", __builtin_cpu_supports("avxvnni"));
  add("amx-tile", __builtin_cpu_supports("amx-tile"));
  add("amx-int8", __builtin_cpu_supports("amx-int8"));
  add("amx-bf16", __builtin_cpu_supports("amx-bf16"));
#endif
}

const char *tsl_host_cpu_features(void) {
  pthread_once(&host_once, read_host);
  return host;
}
