/*
 * fuse (TVM's FuseOps then FuseTIR): in each dataflow block, the
 * R.call_tir bindings fuse_groups.c groups become one prim_func,
 * fused_<callee>_<callee>..., whose body is the callees' bodies in order
 * over shared buffers: the group's inputs and outputs are its parameters,
 * values passed between its members are allocated inside it. The block
 * calls it once where its last member was, binding its one output (a
 * value read after the block cannot be inside a group: it has no
 * post-dominator).
 */
#include "passes_internal.h"

#include "tessel/analysis.h"
#include "tessel/script.h"
#include "tessel/visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one fused prim_func (FuseTIR) ------------------------------------------ */

typedef struct fuser {
  tsl_arena *a;
  tsl_map buffers; /* callee buffer -> the fused function's */
  tsl_map vars;    /* callee size var -> expression over the fused function's */
  tsl_vec names;   /* block names used so far (tsl_str) */
} fuser;

/* `b` with its symbolic sizes in the fused function's terms (a member's
 * own size variables, bound through its inputs, replaced); `b` itself
 * when nothing changes, else a new buffer the member's body is mapped to. */
static const tsl_buffer *resized(fuser *fz, const tsl_buffer *b) {
  const tsl_expr **dims = TSL_NEW_ARRAY(fz->a, const tsl_expr *, b->ndim + 1);
  int changed = 0;
  for (uint32_t d = 0; d < b->ndim; d++) {
    dims[d] = tsl_expr_substitute_map(fz->a, b->shape[d], &fz->vars);
    changed |= dims[d] != b->shape[d];
  }
  if (!changed)
    return b;
  const tsl_buffer *r = tsl_buffer_new(fz->a, b->name, b->dtype, b->ndim, dims, b->strides,
                                       b->elem_offset, b->scope, b->align, b->offset_factor);
  tsl_map_put(&fz->buffers, b, (void *)r);
  return r;
}

/* `b` (a callee's parameter) is the fused function's buffer `to`: its
 * symbolic sizes become to's. */
static void bind_buffer(fuser *fz, const tsl_buffer *b, const tsl_buffer *to) {
  if (b == to)
    return;
  tsl_map_put(&fz->buffers, b, (void *)to);
  for (uint32_t d = 0; d < b->ndim && d < to->ndim; d++)
    if (b->shape[d]->kind == TSL_EXPR_VAR && !tsl_map_get(&fz->vars, b->shape[d]->u.var) &&
        !(to->shape[d]->kind == TSL_EXPR_VAR && to->shape[d]->u.var == b->shape[d]->u.var))
      tsl_map_put(&fz->vars, b->shape[d]->u.var, (void *)to->shape[d]);
}

static const tsl_stmt *rename_blocks(tsl_mutator *m, const tsl_stmt *s) {
  fuser *fz = m->user_data;
  const tsl_stmt *r = tsl_mutate_stmt_children(m, s);
  if (!r || r->kind != TSL_STMT_BLOCK_REALIZE)
    return r;
  const tsl_block *b = r->u.realize.block;
  tsl_str name = b->name;
  char buf[256];
  for (int k = 1;; k++) {
    int taken = 0;
    for (uint32_t i = 0; i < fz->names.len && !taken; i++)
      taken = TSL_VEC_AT(&fz->names, tsl_str, i) == name;
    if (!taken)
      break;
    snprintf(buf, sizeof buf, "%s_%d", b->name, k);
    name = tsl_intern(tsl_arena_ctx(fz->a), buf);
  }
  TSL_VEC_PUSH(&fz->names, tsl_str, name);
  if (name == b->name)
    return r;
  tsl_block *nb = tsl_block_clone(fz->a, b);
  nb->name = name;
  return tsl_stmt_block_realize(fz->a, r->u.realize.n_iter_values, r->u.realize.iter_values,
                                r->u.realize.predicate, nb);
}

/* The root block of a prim_func. */
static const tsl_block *root_of(const tsl_func *f) { return f->body->u.realize.block; }

/* A group member: its call's callee and inputs. */
typedef struct member {
  const tsl_func *callee;
  const tsl_func *original; /* the module's function (callee may be a copy) */
  const tsl_rx_expr *const *in; /* the call's input tuple fields */
  uint32_t n_in;
  const tsl_rx_var *var; /* what it binds */
  int is_output;         /* read after the group */
} member;

/* Two inputs are the same value: one variable, or one constant. */
static int same_value(const tsl_rx_expr *a, const tsl_rx_expr *b) {
  if (a == b)
    return 1;
  if (a->kind != b->kind)
    return 0;
  if (a->kind == TSL_RX_EXPR_VAR)
    return a->var == b->var;
  if (a->kind == TSL_RX_EXPR_CONST) /* R.const: the same value and dtype */
    return tsl_dtype_eq(a->sinfo->dtype, b->sinfo->dtype) &&
           a->dims[0]->kind == b->dims[0]->kind &&
           (a->dims[0]->kind == TSL_EXPR_FLOAT_IMM
                ? a->dims[0]->u.float_value == b->dims[0]->u.float_value
                : a->dims[0]->u.int_value == b->dims[0]->u.int_value);
  return a->kind == TSL_RX_EXPR_CONSTANT && a->index == b->index;
}

static int same_buffer_shape(const tsl_buffer *a, const tsl_buffer *b) {
  if (a->ndim != b->ndim || !tsl_dtype_eq(a->dtype, b->dtype))
    return 0;
  for (uint32_t d = 0; d < a->ndim; d++) {
    int64_t x, y;
    if (!(tsl_expr_is_const_int(a->shape[d], &x) && tsl_expr_is_const_int(b->shape[d], &y) &&
          x == y) &&
        !tsl_expr_equal(a->shape[d], b->shape[d]))
      return 0;
  }
  return 1;
}

/* A copy of f with its own variables and buffers (printed and parsed
 * again), for a callee a group calls twice: one function body must not
 * define a loop variable or a buffer twice. NULL if it does not parse. */
static const tsl_func *fresh_copy(tsl_arena *a, const tsl_func *f) {
  char *text = tsl_print_func(f);
  const tsl_module *m = NULL;
  int rc = text ? tsl_parse(a, "<fuse>", text, strlen(text), &m, NULL) : TSL_ENOMEM;
  free(text);
  return rc || !m || m->n_funcs != 1 ? NULL : m->funcs[0];
}

/* The fused prim_func of `n` members (in binding order) named `name`;
 * inputs (the group's, in first-use order) into *ins. */
static const tsl_func *fuse_funcs(tsl_arena *a, const char *name, member *ms, uint32_t n,
                                  tsl_vec *ins) {
  fuser fz = {.a = a};
  tsl_map_init(&fz.buffers, NULL);
  tsl_map_init(&fz.vars, NULL);
  tsl_vec_init(&fz.names, sizeof(tsl_str), NULL);
  tsl_vec in_bufs, params, allocs, body;
  tsl_vec_init(&in_bufs, sizeof(const tsl_buffer *), NULL);
  tsl_vec_init(&params, sizeof(tsl_param), NULL);
  tsl_vec_init(&allocs, sizeof(const tsl_buffer *), NULL);
  tsl_vec_init(&body, sizeof(const tsl_stmt *), NULL);
  tsl_vec outs;
  tsl_vec_init(&outs, sizeof(tsl_param), NULL);
  int failed = 0;
  for (uint32_t k = 0; k < n && !failed; k++) {
    const tsl_func *f = ms[k].callee;
    for (uint32_t j = 0; j < k; j++)
      if (ms[j].original == ms[k].original) {
        failed = !(f = ms[k].callee = fresh_copy(a, f));
        break;
      }
    if (failed)
      break;
    for (uint32_t i = 0; i < ms[k].n_in; i++) {
      const tsl_rx_expr *v = ms[k].in[i];
      const tsl_buffer *b = f->params[i].buffer;
      int producer = -1;
      for (uint32_t j = 0; j < k && v->kind == TSL_RX_EXPR_VAR; j++)
        if (ms[j].var == v->var)
          producer = (int)j;
      if (producer >= 0) { /* a value of the group: the producer's output buffer */
        const tsl_func *pf = ms[producer].callee;
        const tsl_buffer *pb = pf->params[pf->n_params - 1].buffer;
        bind_buffer(&fz, b, tsl_map_get(&fz.buffers, pb) ? tsl_map_get(&fz.buffers, pb) : pb);
        continue;
      }
      uint32_t j = 0; /* one parameter per value (and buffer shape: a weight of unknown
                          struct info may be passed at two shapes; the model fails later) */
      while (j < ins->len && !(same_value(TSL_VEC_AT(ins, const tsl_rx_expr *, j), v) &&
                               same_buffer_shape(TSL_VEC_AT(&in_bufs, const tsl_buffer *, j), b)))
        j++;
      if (j < ins->len) {
        bind_buffer(&fz, b, TSL_VEC_AT(&in_bufs, const tsl_buffer *, j));
        continue;
      }
      TSL_VEC_PUSH(ins, const tsl_rx_expr *, v);
      TSL_VEC_PUSH(&in_bufs, const tsl_buffer *, b);
      TSL_VEC_PUSH(&params, tsl_param, f->params[i]);
    }
    /* the member's output and allocations take the group's sizes */
    tsl_param out = f->params[f->n_params - 1];
    out.buffer = resized(&fz, out.buffer);
    if (ms[k].is_output)
      TSL_VEC_PUSH(&outs, tsl_param, out);
    else
      TSL_VEC_PUSH(&allocs, const tsl_buffer *, out.buffer);
    const tsl_block *root = root_of(f);
    for (uint32_t i = 0; i < root->n_alloc_buffers; i++)
      TSL_VEC_PUSH(&allocs, const tsl_buffer *, resized(&fz, root->alloc_buffers[i]));
    tsl_mutator m = tsl_mutator_make(a);
    m.buffers = &fz.buffers;
    m.vars = &fz.vars;
    m.stmt = rename_blocks;
    m.user_data = &fz;
    const tsl_stmt *s = tsl_mutate_stmt(&m, root->body);
    if (s)
      TSL_VEC_PUSH(&body, const tsl_stmt *, s);
  }
  tsl_func *fn = NULL;
  if (failed)
    goto done;
  tsl_vec_append(&params, outs.data, outs.len);
  /* the parameters' and allocations' own shapes use the first callee's
   * sizes already: buffers are shared, not rebuilt */
  tsl_block *root = tsl_block_clone(a, root_of(ms[0].callee));
  root->n_alloc_buffers = allocs.len;
  root->alloc_buffers = tsl_vec_dup(&allocs, a);
  root->body = tsl_stmt_seq(a, body.len, tsl_vec_dup(&body, a));
  fn = TSL_NEW(a, tsl_func);
  fn->name = tsl_intern(tsl_arena_ctx(a), name);
  fn->n_params = params.len;
  fn->params = tsl_vec_dup(&params, a);
  fn->attrs = ms[0].callee->attrs;
  fn->body = tsl_stmt_block_realize(a, 0, NULL, ms[0].callee->body->u.realize.predicate, root);
done:
  tsl_map_free(&fz.buffers);
  tsl_map_free(&fz.vars);
  tsl_vec_free(&fz.names);
  tsl_vec_free(&in_bufs);
  tsl_vec_free(&params);
  tsl_vec_free(&allocs);
  tsl_vec_free(&body);
  tsl_vec_free(&outs);
  return fn;
}

/* ---- the pass ------------------------------------------------------------------ */

typedef struct fusing {
  const tsl_pass_ctx *ctx;
  const tsl_module *tir;
  const tsl_model *in;
} fusing;

/* The prim_func binding i calls with one output, or NULL. */
static const tsl_func *callee_of(const fusing *fu, const tsl_rx_binding *b) {
  const tsl_rx_expr *v = b->value;
  if (v->kind != TSL_RX_EXPR_CALL || v->op != TSL_RX_OP_CALL_TIR ||
      v->args[0]->kind != TSL_RX_EXPR_GLOBAL || v->n_sinfo_args != 1)
    return NULL;
  const tsl_func *f = tsl_module_find(fu->tir, v->args[0]->name);
  for (uint32_t i = 0; f && i < f->n_params; i++)
    if (!f->params[i].buffer)
      return NULL;
  /* operands are variables and constants (TVM's normal form); a call
   * nested in an operand (R.subtract(R.add(c, a), b) legalized) is not
   * fused: its operand is no binding the group could own */
  for (uint32_t i = 0; i < v->args[1]->n_args; i++)
    if (v->args[1]->args[i]->kind != TSL_RX_EXPR_VAR &&
        v->args[1]->args[i]->kind != TSL_RX_EXPR_CONSTANT &&
        v->args[1]->args[i]->kind != TSL_RX_EXPR_CONST)
      return NULL;
  return f && f->n_params == v->args[1]->n_args + 1 ? f : NULL;
}

static int note_use(const tsl_rx_expr *e, void *user_data) {
  if (e->kind == TSL_RX_EXPR_VAR)
    tsl_map_put(user_data, e->var, TSL_MAP_INT(1));
  return 0;
}

static int name_taken(const fusing *fu, const char *name) {
  return tsl_module_find(fu->tir, name) || tsl_model_find(fu->in, name);
}

/* One dataflow block with its groups fused; `after` holds the variables
 * used after it. Returns the block (the same when nothing fused). */
static tsl_rx_block fuse_block(fusing *fu, const tsl_rx_block *blk, tsl_map *after,
                               int *status, tsl_diag *diag) {
  tsl_arena *a = fu->ctx->arena;
  uint32_t n = blk->n_bindings;
  int *pattern = calloc(n + 1, sizeof *pattern), *external = calloc(n + 1, sizeof *external);
  int *group = calloc(n + 1, sizeof *group);
  uint32_t **outs = calloc(n + 1, sizeof *outs), *n_outs = calloc(n + 1, sizeof *n_outs);
  const tsl_func **callee = calloc(n + 1, sizeof *callee);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_rx_binding *b = &blk->bindings[i];
    callee[i] = callee_of(fu, b);
    pattern[i] = callee[i] ? pass_op_pattern(callee[i]) : PASS_PATTERN_OPAQUE;
    external[i] = tsl_map_get(after, b->var) != NULL;
    outs[i] = calloc(n + 1, sizeof **outs);
    tsl_map used;
    tsl_map_init(&used, NULL);
    tsl_rx_visit_expr(b->value, note_use, &used);
    for (uint32_t j = 0; j < i; j++)
      if (tsl_map_get(&used, blk->bindings[j].var)) {
        int dup = 0;
        for (uint32_t k = 0; k < n_outs[j]; k++)
          dup |= outs[j][k] == i;
        if (!dup)
          outs[j][n_outs[j]++] = i;
      }
    tsl_map_free(&used);
  }
  pass_fuse_partition(n, pattern, (const uint32_t *const *)outs, n_outs, external, group);

  /* a group is rewritten when it has two members or more, all calls, and
   * no reader outside it before its last member; its binding goes where
   * its last member was */
  int *fusable = calloc(n + 1, sizeof *fusable);
  uint32_t *last = calloc(n + 1, sizeof *last), *size = calloc(n + 1, sizeof *size);
  for (uint32_t j = 0; j < n; j++) {
    uint32_t g = (uint32_t)group[j];
    fusable[g] = size[g] == 0 ? 1 : fusable[g];
    fusable[g] &= callee[j] != NULL;
    last[g] = j;
    size[g]++;
  }
  /* one value leaves a group: a value read after the block has no
   * post-dominator, so only a group's sink can be one */
  uint32_t *n_leaving = calloc(n + 1, sizeof *n_leaving);
  for (uint32_t j = 0; j < n; j++) {
    uint32_t g = (uint32_t)group[j];
    int leaves = external[j];
    for (uint32_t k = 0; k < n_outs[j]; k++) {
      leaves |= group[outs[j][k]] != group[j];
      if (group[outs[j][k]] != group[j] && outs[j][k] < last[g])
        fusable[g] = 0;
    }
    n_leaving[g] += leaves != 0;
  }
  for (uint32_t g = 0; g < n; g++)
    if (n_leaving[g] > 1)
      fusable[g] = 0;
  free(n_leaving);
  tsl_rx_binding *nb = TSL_NEW_ARRAY(a, tsl_rx_binding, n + 1);
  uint32_t count = 0;
  int changed = 0;
  for (uint32_t i = 0; i < n && !*status; i++) {
    uint32_t g = (uint32_t)group[i];
    if (!fusable[g] || size[g] < 2) {
      nb[count++] = blk->bindings[i];
      continue;
    }
    if (i != last[g])
      continue;
    member *ms = calloc(size[g], sizeof *ms);
    uint32_t m = 0, n_outputs = 0;
    char fname[128] = "fused";
    for (uint32_t j = 0; j <= i; j++) {
      if ((uint32_t)group[j] != g)
        continue;
      const tsl_rx_expr *args = blk->bindings[j].value->args[1];
      /* the last member, the sink, is the group's one output (what leaves
       * a group was counted above) */
      ms[m] = (member){callee[j], callee[j], args->args, args->n_args, blk->bindings[j].var,
                       j == i};
      n_outputs += ms[m].is_output;
      size_t len = strlen(fname);
      if (len + strlen(callee[j]->name) + 2 < 100)
        snprintf(fname + len, sizeof fname - len, "_%s", callee[j]->name);
      m++;
    }
    char unique[160];
    snprintf(unique, sizeof unique, "%s", fname);
    for (int k = 1; name_taken(fu, unique); k++)
      snprintf(unique, sizeof unique, "%s%d", fname, k);
    tsl_vec ins;
    tsl_vec_init(&ins, sizeof(const tsl_rx_expr *), NULL);
    const tsl_func *ff = fuse_funcs(a, unique, ms, m, &ins);
    if (!ff) {
      *status = tsl_diag_set(diag, TSL_EINVALID, "fuse: %s: a callee does not print and parse "
                             "back", unique);
      tsl_vec_free(&ins);
      free(ms);
      break;
    }
    fu->tir = tsl_module_with(a, fu->tir, ff);
    const tsl_rx_sinfo **osi = TSL_NEW_ARRAY(a, const tsl_rx_sinfo *, n_outputs + 1);
    uint32_t k = 0;
    for (uint32_t j = 0; j < m; j++)
      if (ms[j].is_output)
        osi[k++] = ms[j].var->sinfo;
    tsl_diag d = {0};
    const tsl_rx_expr *call = tsl_rx_dps_call(
        a, fu->tir, TSL_RX_OP_CALL_TIR, tsl_rx_global(a, ff->name),
        tsl_rx_tuple(a, ins.len, TSL_VEC_DATA(&ins, const tsl_rx_expr *)), n_outputs, osi, &d);
    tsl_vec_free(&ins);
    if (!call) {
      *status = tsl_diag_set(diag, TSL_EINVALID, "fuse: the fused call of %s: %s", unique,
                             d.text);
      free(ms);
      break;
    }
    for (uint32_t j = 0; j < m; j++)
      if (ms[j].is_output)
        nb[count++] = (tsl_rx_binding){ms[j].var, call};
    free(ms);
    changed = 1;
  }
  free(fusable);
  free(last);
  free(size);
  for (uint32_t i = 0; i < n; i++)
    free(outs[i]);
  free(outs);
  free(n_outs);
  free(pattern);
  free(external);
  free(group);
  free(callee);
  tsl_rx_block r = *blk;
  if (changed) {
    r.n_bindings = count;
    r.bindings = nb;
  }
  return r;
}

static int run(void *user_data, const tsl_pass_ctx *ctx, const tsl_model *in,
               const tsl_model **out, tsl_diag *diag) {
  (void)user_data;
  fusing fu = {ctx, in->tir, in};
  int status = TSL_OK, changed = 0;
  const tsl_rx_func **fs = TSL_NEW_ARRAY(ctx->arena, const tsl_rx_func *, in->n_rx_funcs + 1);
  for (uint32_t i = 0; i < in->n_rx_funcs && !status; i++) {
    const tsl_rx_func *f = in->rx_funcs[i];
    tsl_rx_block *blocks = TSL_NEW_ARRAY(ctx->arena, tsl_rx_block, f->n_blocks + 1);
    int fchanged = 0;
    for (uint32_t b = 0; b < f->n_blocks && !status; b++) {
      blocks[b] = f->blocks[b];
      if (!f->blocks[b].is_dataflow)
        continue;
      tsl_map after; /* variables read after block b */
      tsl_map_init(&after, NULL);
      for (uint32_t c = b + 1; c < f->n_blocks; c++)
        for (uint32_t k = 0; k < f->blocks[c].n_bindings; k++)
          tsl_rx_visit_expr(f->blocks[c].bindings[k].value, note_use, &after);
      tsl_rx_visit_expr(f->ret, note_use, &after);
      blocks[b] = fuse_block(&fu, &f->blocks[b], &after, &status, diag);
      fchanged |= blocks[b].bindings != f->blocks[b].bindings;
      tsl_map_free(&after);
    }
    fs[i] = fchanged ? tsl_rx_func_new(ctx->arena, f->name, f->n_params, f->params,
                                       f->n_size_vars, f->size_vars, f->n_blocks, blocks, f->ret,
                                       f->ret_sinfo)
                     : f;
    changed |= fchanged;
  }
  *out = in;
  if (!status && changed)
    *out = tsl_model_new(ctx->arena, fu.tir, in->n_rx_funcs, fs, in->n_constants,
                         pass_model_constants(in));
  return status;
}

const tsl_pass_vtable pass_fuse_vt = {sizeof(tsl_pass_vtable), run};
