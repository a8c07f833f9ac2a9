/*
 * strategies/evolutionary/crossover.c — node-based crossover (crossover.h).
 */
#include "crossover.h"

#include <stdlib.h>
#include <string.h>

#define NO_NODE UINT32_MAX /* a handle of no node */

/* The first handle in `v` (depth first), or 0 with *found 0. */
static tsl_sch_rv first_rv(const tsl_sch_value *v, int *found) {
  if (v->kind == TSL_SV_RV) {
    *found = 1;
    return v->u.rv;
  }
  if (v->kind == TSL_SV_LIST || v->kind == TSL_SV_TUPLE || v->kind == TSL_SV_DICT)
    for (uint32_t i = 0; i < v->n; i++) {
      tsl_sch_rv rv = first_rv(&v->u.items[i], found);
      if (*found)
        return rv;
    }
  return 0;
}

static int holds_rv(const tsl_sch_value *v) {
  int found = 0;
  first_rv(v, &found);
  return found;
}

static int is_annotate(const tsl_trace_inst *in) { return !strcmp(in->kind->name, "annotate"); }

/* Which arguments of `in` are genes: the value of an annotate when it is a
 * constant (its last argument); a sample's genes are its decision. */
static int arg_is_gene(const tsl_trace_inst *in, uint32_t arg) {
  return is_annotate(in) && arg + 1 == in->n_args && !holds_rv(&in->args[arg]);
}

/* 1 when the instructions are the same but for their genes; *differs says
 * whether the genes differ. */
static int same_but_genes(const tsl_trace_inst *x, const tsl_trace_inst *y, int *differs) {
  *differs = 0;
  if (x->kind != y->kind || x->n_args != y->n_args || x->n_outs != y->n_outs)
    return 0;
  for (uint32_t j = 0; j < x->n_outs; j++)
    if (x->outs[j] != y->outs[j])
      return 0;
  for (uint32_t j = 0; j < x->n_args; j++) {
    int eq = tsl_sv_equal(&x->args[j], &y->args[j]);
    if (arg_is_gene(x, j) && !holds_rv(&y->args[j]))
      *differs |= !eq;
    else if (!eq)
      return 0;
  }
  if (x->kind->is_sample)
    *differs |= !tsl_sv_equal(&x->decision, &y->decision);
  return 1;
}

/* The node of each instruction (NO_NODE: none) into inode[0..len). */
static int nodes_of(const tsl_trace *t, uint32_t len, uint32_t *inode) {
  uint32_t max_rv = 0;
  for (uint32_t i = 0; i < len; i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    for (uint32_t j = 0; j < in->n_outs; j++)
      if (in->outs[j] > max_rv)
        max_rv = in->outs[j];
  }
  uint32_t *rv_node = malloc(((size_t)max_rv + 1) * sizeof *rv_node);
  if (!rv_node)
    return TSL_ENOMEM;
  for (uint32_t r = 0; r <= max_rv; r++)
    rv_node[r] = NO_NODE;
  for (uint32_t i = 0; i < len; i++) {
    const tsl_trace_inst *in = tsl_trace_get(t, i);
    uint32_t node = NO_NODE;
    for (uint32_t j = 0; j < in->n_args && node == NO_NODE; j++) {
      int found = 0;
      tsl_sch_rv rv = first_rv(&in->args[j], &found);
      if (found && rv <= max_rv)
        node = rv_node[rv];
    }
    /* an instruction on no handle is a node of its own: the instruction's
     * index above the handles' range names it */
    inode[i] = node != NO_NODE ? node : max_rv + 1 + i;
    for (uint32_t j = 0; j < in->n_outs; j++)
      rv_node[in->outs[j]] =
          tsl_trace_rv_kind(t, in->outs[j]) == TSL_RV_BLOCK ? in->outs[j] : inode[i];
  }
  free(rv_node);
  return TSL_OK;
}

/* Copies instruction i's genes from `b` into `child`. */
static int take_genes(tsl_trace *child, const tsl_trace_inst *ib, uint32_t i) {
  tsl_diag d;
  if (ib->kind->is_sample)
    return tsl_trace_set_decision(child, i, &ib->decision, &d);
  for (uint32_t j = 0; j < ib->n_args; j++)
    if (arg_is_gene(ib, j)) {
      int rc = tsl_trace_set_arg(child, i, j, &ib->args[j], &d);
      if (rc)
        return rc;
    }
  return TSL_OK;
}

int evo_crossover(const tsl_trace *a, const tsl_trace *b, double p_a, uint64_t *rng,
                  tsl_trace **out) {
  *out = NULL;
  uint32_t len = tsl_trace_len(a);
  if (!len || len != tsl_trace_len(b))
    return 1;
  /* per instruction: its node; per differing node: the parent it takes */
  uint32_t *inode = malloc(len * sizeof *inode), *diff_node = malloc(len * sizeof *diff_node);
  unsigned char *from_b = calloc(len, 1), *gene_differs = calloc(len, 1);
  int rc = !inode || !diff_node || !from_b || !gene_differs ? TSL_ENOMEM : TSL_OK;
  uint32_t n_diff = 0;
  for (uint32_t i = 0; !rc && i < len; i++) {
    int differs;
    if (!same_but_genes(tsl_trace_get(a, i), tsl_trace_get(b, i), &differs))
      rc = 1;
    gene_differs[i] = (unsigned char)differs;
  }
  if (!rc)
    rc = nodes_of(a, len, inode);
  for (uint32_t i = 0; !rc && i < len; i++) {
    if (!gene_differs[i])
      continue;
    uint32_t k = 0;
    while (k < n_diff && diff_node[k] != inode[i])
      k++;
    if (k == n_diff)
      diff_node[n_diff++] = inode[i];
  }
  if (!rc && n_diff < 2)
    rc = 1;
  if (!rc) {
    /* a node's parent by p_a; a draw that took every node from one parent
     * gives one node, drawn uniformly, to the other */
    uint32_t n_b = 0;
    for (uint32_t k = 0; k < n_diff; k++) {
      from_b[k] = tsl_rand_unit(rng) >= p_a;
      n_b += from_b[k];
    }
    if (n_b == 0 || n_b == n_diff) {
      uint32_t k = (uint32_t)tsl_rand_below(rng, n_diff);
      from_b[k] = !from_b[k];
    }
    tsl_trace *child = tsl_trace_copy(a);
    if (!child)
      rc = TSL_ENOMEM;
    for (uint32_t i = 0; !rc && i < len; i++) {
      if (!gene_differs[i])
        continue;
      uint32_t k = 0;
      while (diff_node[k] != inode[i])
        k++;
      int g = from_b[k] ? take_genes(child, tsl_trace_get(b, i), i) : TSL_OK;
      if (g) /* else a gene the child's instruction does not take */
        rc = g == TSL_ENOMEM ? TSL_ENOMEM : 1;
    }
    if (rc)
      tsl_trace_free(child);
    else
      *out = child;
  }
  free(inode);
  free(diff_node);
  free(from_b);
  free(gene_differs);
  return rc;
}
