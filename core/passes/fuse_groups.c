/*
 * Which bindings of a dataflow block fuse (TVM's FuseOps partitioning):
 * the graph of R.call_tir bindings, each with its prim_func's pattern
 * (op_pattern.c), its post-dominator tree, and TVM's rules run in two
 * phases over the bindings in order:
 *  - an output-fusible node (matmul, conv) joins its immediate
 *    post-dominator when the edges up to it are element-wise and every
 *    node on the way is at most broadcast (matmul + bias + ReLU);
 *  - an element-wise or broadcast node joins its post-dominator when the
 *    way is injective and the sink at most output-fusible or a reduction;
 *  - in the second phase an injective node joins along injective ways.
 * Anything that is not a call of a prim_func of the module is opaque and
 * fuses with nothing; a value used after the block has no post-dominator.
 */
#include "passes_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct gnode {
  int pattern;
  uint32_t n_out;
  uint32_t *outs; /* consumers (node indices) */
  int external;   /* used after the block */
  int parent;     /* immediate post-dominator, -1: none */
  int depth;
  int dom_pattern; /* the edges' combined pattern up to the parent */
  int group;       /* union-find parent, itself when a root */
  int gpattern;    /* the group's pattern (meaningful at roots) */
  int anchor;      /* the group holds an output-fusible node */
} gnode;

typedef struct graph {
  gnode *n;
  uint32_t count;
  char *visited;
} graph;

static int find(graph *g, int i) {
  while (g->n[i].group != i)
    i = g->n[i].group = g->n[g->n[i].group].group;
  return i;
}

static int combine(int a, int b) { return a > b ? a : b; }

/* LCA in the post-dominator tree, combining the patterns walked. */
static int lca(graph *g, int a, int b, int *pattern) {
  while (a != b) {
    if (a < 0 || b < 0)
      return -1;
    if (g->n[a].depth < g->n[b].depth) {
      *pattern = combine(*pattern, g->n[b].dom_pattern);
      b = g->n[b].parent;
    } else if (g->n[b].depth < g->n[a].depth) {
      *pattern = combine(*pattern, g->n[a].dom_pattern);
      a = g->n[a].parent;
    } else {
      *pattern = combine(*pattern, combine(g->n[a].dom_pattern, g->n[b].dom_pattern));
      a = g->n[a].parent;
      b = g->n[b].parent;
    }
  }
  return a;
}

static void post_dominators(graph *g) {
  for (uint32_t k = g->count; k-- > 0;) {
    gnode *n = &g->n[k];
    n->parent = -1;
    n->dom_pattern = PASS_PATTERN_OPAQUE;
    if (!n->external && n->n_out) {
      int p = (int)n->outs[0], pattern = g->n[p].pattern; /* edge: the consumer's pattern */
      for (uint32_t i = 1; i < n->n_out && p >= 0; i++) {
        pattern = combine(pattern, g->n[n->outs[i]].pattern);
        p = lca(g, p, (int)n->outs[i], &pattern);
      }
      n->parent = p;
      n->dom_pattern = pattern;
    }
    n->depth = n->parent >= 0 ? g->n[n->parent].depth + 1 : 1;
  }
}

typedef int (*fcond_fn)(int kind, int is_sink);

static int check_path_(graph *g, uint32_t src, uint32_t sink, fcond_fn fcond) {
  if (g->visited[src])
    return 1;
  g->visited[src] = 1;
  if (!fcond(g->n[find(g, (int)src)].gpattern, src == sink))
    return 0;
  if (src == sink)
    return 1;
  for (uint32_t i = 0; i < g->n[src].n_out; i++)
    if (!check_path_(g, g->n[src].outs[i], sink, fcond))
      return 0;
  return 1;
}

static int check_path(graph *g, uint32_t src, uint32_t sink, fcond_fn fcond) {
  memset(g->visited, 0, g->count);
  for (uint32_t i = 0; i < g->n[src].n_out; i++)
    if (!check_path_(g, g->n[src].outs[i], sink, fcond))
      return 0;
  return 1;
}

static void merge(graph *g, int child, int parent) {
  child = find(g, child);
  parent = find(g, parent);
  if (child == parent)
    return;
  g->n[child].group = parent;
  g->n[parent].anchor |= g->n[child].anchor;
  g->n[parent].gpattern = combine(g->n[child].gpattern, g->n[parent].gpattern);
}

static void commit_(graph *g, uint32_t src, uint32_t sink, int target) {
  if (src == sink || g->visited[src])
    return;
  g->visited[src] = 1;
  merge(g, (int)src, target);
  for (uint32_t i = 0; i < g->n[src].n_out; i++)
    commit_(g, g->n[src].outs[i], sink, target);
}

static void commit(graph *g, uint32_t src, uint32_t sink) {
  memset(g->visited, 0, g->count);
  commit_(g, src, sink, (int)sink);
}

static int upto_broadcast(int kind, int is_sink) {
  (void)is_sink;
  return kind <= PASS_PATTERN_BROADCAST;
}

static int into_sink(int kind, int is_sink) {
  if (!is_sink)
    return kind <= PASS_PATTERN_INJECTIVE;
  return kind <= PASS_PATTERN_BROADCAST || kind == PASS_PATTERN_COMM_REDUCE ||
         kind == PASS_PATTERN_INJECTIVE || kind == PASS_PATTERN_OUT_EWISE_FUSABLE;
}

static int injective_only(int kind, int is_sink) {
  (void)is_sink;
  return kind <= PASS_PATTERN_INJECTIVE;
}

/* TVM's RunFuse: `gp` is the pattern of the node's own group (a node
 * producers fused into carries theirs: matmul + add is output-fusible). */
static void run_phase(graph *g, int phase) {
  for (uint32_t k = 0; k < g->count; k++) {
    gnode *n = &g->n[k];
    int gp = n->gpattern;
    if (gp == PASS_PATTERN_OPAQUE || n->parent < 0)
      continue;
    uint32_t sink = (uint32_t)n->parent;
    if (find(g, (int)k) == find(g, (int)sink))
      continue;
    if (gp == PASS_PATTERN_OUT_EWISE_FUSABLE) {
      if (phase == 0 && n->dom_pattern == PASS_PATTERN_ELEMWISE &&
          check_path(g, k, sink, upto_broadcast))
        commit(g, k, sink);
    } else if (gp <= PASS_PATTERN_BROADCAST) {
      if ((n->dom_pattern <= PASS_PATTERN_INJECTIVE ||
           n->dom_pattern == PASS_PATTERN_COMM_REDUCE) &&
          check_path(g, k, sink, into_sink))
        commit(g, k, sink);
    } else if (gp == PASS_PATTERN_INJECTIVE) {
      if (phase == 1 && check_path(g, k, sink, injective_only))
        commit(g, k, sink);
    }
  }
}

void pass_fuse_partition(uint32_t count, const int *patterns, const uint32_t *const *outs,
                         const uint32_t *n_outs, const int *external, int *group_of) {
  graph g = {0};
  g.count = count;
  g.n = calloc(count ? count : 1, sizeof *g.n);
  g.visited = calloc(count ? count : 1, 1);
  for (uint32_t i = 0; i < count; i++) {
    g.n[i].pattern = g.n[i].gpattern = patterns[i];
    g.n[i].outs = (uint32_t *)outs[i];
    g.n[i].n_out = n_outs[i];
    g.n[i].external = external[i];
    g.n[i].group = (int)i;
    g.n[i].anchor = patterns[i] == PASS_PATTERN_OUT_EWISE_FUSABLE;
  }
  post_dominators(&g);
  run_phase(&g, 0);
  run_phase(&g, 1);
  for (uint32_t i = 0; i < count; i++)
    group_of[i] = find(&g, (int)i);
  free(g.n);
  free(g.visited);
}
