/*
 * Small file helpers shared by the test programs that walk case folders
 * (tests/schedule/cases, workloads/, ...): sorted directory listings and the
 * TESSEL_CASES filter. Header-only; include after the system headers.
 */
#ifndef TESSEL_TEST_FILES_H
#define TESSEL_TEST_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static inline int tf_cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted names in `dir` ending with `suffix` (suffix stripped; malloc'ed),
 * or its subdirectories when want_dirs: the first `cap` in name order (the
 * same on every file system). */
static inline int tf_list(const char *dir, const char *suffix, int want_dirs,
                          char **names, int cap) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  int n = 0, size = 0;
  char **all = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%.4000s/%s", dir, e->d_name);
    if (stat(p, &st))
      continue;
    size_t l = strlen(e->d_name), ls = strlen(suffix);
    if (!(want_dirs ? S_ISDIR(st.st_mode) : (l > ls && strcmp(e->d_name + l - ls, suffix) == 0)))
      continue;
    if (n == size) {
      size = size ? 2 * size : 64;
      char **grown = realloc(all, sizeof *all * (size_t)size);
      if (!grown)
        break;
      all = grown;
    }
    all[n++] = want_dirs ? strdup(e->d_name) : strndup(e->d_name, l - ls);
  }
  closedir(d);
  if (n)
    qsort(all, (size_t)n, sizeof *all, tf_cmp_names);
  for (int i = 0; i < n; i++) {
    if (i < cap)
      names[i] = all[i];
    else
      free(all[i]);
  }
  free(all);
  return n < cap ? n : cap;
}

/* 1 when `name` is in the comma-separated TESSEL_CASES list, or the list
 * is unset/empty. */
static inline int tf_selected(const char *name) {
  const char *sel = getenv("TESSEL_CASES");
  if (!sel || !*sel)
    return 1;
  size_t l = strlen(name);
  for (const char *p = sel; *p;) {
    const char *c = strchr(p, ',');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    if (n == l && !strncmp(p, name, l))
      return 1;
    p += n + (c ? 1 : 0);
  }
  return 0;
}

/* The whole file at `path` (malloc'ed, NUL-terminated; *n its length when
 * n is not NULL), or NULL. */
static inline char *tf_slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)(len > 0 ? len : 0) + 1);
  size_t got = buf ? fread(buf, 1, (size_t)(len > 0 ? len : 0), f) : 0;
  if (buf)
    buf[got] = '\0';
  fclose(f);
  if (n)
    *n = got;
  return buf;
}

#ifdef TESSEL_TESTS_TAP_H
/* `got` equals the golden file `path` (a TAP diagnostic shows both when
 * not); with `update` the file is rewritten instead. */
static inline int tf_golden(const char *path, const char *got, int update) {
  if (update) {
    FILE *f = fopen(path, "wb");
    if (f) {
      fputs(got, f);
      fclose(f);
    }
    return f != NULL;
  }
  char *want = tf_slurp(path, NULL);
  int same = want && !strcmp(want, got);
  if (!same)
    tap_diag("expected (%s):\n%s\ngot:\n%s", path, want ? want : "(missing)", got);
  free(want);
  return same;
}
#endif

#endif
