/*
 * tests/rules/case_options.h — the `# options: K=V K=V` line a rules test
 * case may carry (the component's options). Header-only; include after the
 * system headers and tessel.h.
 */
#ifndef TESSEL_TESTS_RULES_CASE_OPTIONS_H
#define TESSEL_TESTS_RULES_CASE_OPTIONS_H

#include <stdio.h>
#include <string.h>

/* The options of the `# options:` line of `src` (NULL: none) in kv, at most
 * `cap`, keys and values pointing into buf; the count. */
static inline uint32_t case_options(const char *src, char *buf, size_t size, tsl_kv *kv,
                                    uint32_t cap) {
  const char *line = src ? strstr(src, "# options:") : NULL;
  if (!line)
    return 0;
  snprintf(buf, size, "%.*s", (int)strcspn(line + 10, "\n"), line + 10);
  uint32_t n = 0;
  for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && n < cap;
       t = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(t, '=');
    if (eq) {
      *eq = 0;
      kv[n++] = (tsl_kv){t, eq + 1};
    }
  }
  return n;
}

#endif
