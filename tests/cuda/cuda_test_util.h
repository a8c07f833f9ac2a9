/*
 * tests/cuda/cuda_test_util.h — what the CUDA tests share: the shared
 * memory a lowered program declares (its buffers and tsl_allreduce's tree)
 * and ptxas's report of a PTX image (shared memory, registers).
 * Header-only; include after the system headers and cuda_internal.h.
 */
#ifndef TESSEL_TESTS_CUDA_TEST_UTIL_H
#define TESSEL_TESTS_CUDA_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessel/visit.h"

/* The tree instantiations of tsl_allreduce seen in the current kernel: one
 * static 1024-element shared buffer each (the warp shuffles of up to 32
 * threads of threadIdx.x take none). */
typedef struct smem_walk {
  int64_t bytes;
  const char *trees[32];
  int n_trees;
  int in_kernel;
} smem_walk;

static inline int tree_bytes(const tsl_expr *e, void *ud) {
  smem_walk *w = ud;
  int extent, dim;
  if (e->kind != TSL_EXPR_CALL_EXTERN ||
      sscanf(e->u.str_value, "tsl_allreduce<%*[a-z_], %d, %d>", &extent, &dim) != 2 ||
      (dim == 0 && extent <= 32 && (extent & (extent - 1)) == 0))
    return 0;
  for (int i = 0; i < w->n_trees; i++)
    if (!strcmp(w->trees[i], e->u.str_value))
      return 0;
  if (w->n_trees < 32)
    w->trees[w->n_trees++] = e->u.str_value;
  w->bytes += 1024 * (e->dtype.bits / 8);
  return 0;
}

static inline void smem_stmt(smem_walk *w, const tsl_stmt *s) {
  int64_t size;
  switch (s->kind) {
  case TSL_STMT_FOR: {
    int root = !w->in_kernel && s->u.loop.for_kind == TSL_FOR_THREAD_BINDING &&
               (!strncmp(s->u.loop.thread_tag, "blockIdx", 8) ||
                !strncmp(s->u.loop.thread_tag, "threadIdx", 9));
    if (root) {
      w->in_kernel = 1;
      w->n_trees = 0; /* a kernel of its own: its own instantiations */
    }
    smem_stmt(w, s->u.loop.body);
    if (root)
      w->in_kernel = 0;
    return;
  }
  case TSL_STMT_IF:
    smem_stmt(w, s->u.branch.then_case);
    if (s->u.branch.else_case)
      smem_stmt(w, s->u.branch.else_case);
    return;
  case TSL_STMT_LET:
    tsl_expr_visit(s->u.let.value, tree_bytes, w);
    return smem_stmt(w, s->u.let.body);
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      smem_stmt(w, s->u.seq.stmts[i]);
    return;
  case TSL_STMT_ALLOCATE:
    if (!strcmp(s->u.alloc.buffer->scope, "shared") && /* ptxas counts static arrays */
        tsl_expr_is_const_int(s->u.alloc.buffer->shape[0], &size))
      w->bytes += size * ((s->u.alloc.buffer->dtype.bits + 7) / 8);
    return smem_stmt(w, s->u.alloc.body);
  default: return;
  }
}

/* The shared memory of a lowered program's kernels, summed. */
static inline int64_t shared_bytes(const tsl_stmt *s) {
  smem_walk w = {0};
  smem_stmt(&w, s);
  return w.bytes;
}

static inline int ptxas(const tcu_image *img, const char *tmp, long *smem, long *regs, char *log,
                 size_t cap) {
  char path[600], cmd[1400];
  snprintf(path, sizeof path, "%s/k.ptx", tmp);
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fwrite(img->ptx, 1, img->ptx_len, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "'%s/bin/ptxas' -arch=sm_90 -v '%s' -o /dev/null 2>&1",
           tcu_cuda_home(), path);
  FILE *p = popen(cmd, "r");
  size_t got = p ? fread(log, 1, cap - 1, p) : 0;
  log[got] = 0;
  int rc = p ? pclose(p) : -1;
  *smem = *regs = 0;
  for (const char *q = log; (q = strstr(q, "Used ")); q++) { /* one line per kernel */
    long r = 0, s = 0;
    const char *sm = strstr(q, "bytes smem");
    sscanf(q, "Used %ld registers", &r);
    if (sm && (!strchr(q, '\n') || sm < strchr(q, '\n'))) {
      const char *b = sm;
      while (b > q && b[-1] == ' ')
        b--;
      while (b > q && b[-1] >= '0' && b[-1] <= '9')
        b--;
      s = strtol(b, NULL, 10);
    }
    *regs = r > *regs ? r : *regs;
    *smem += s;
  }
  return rc;
}

#endif
