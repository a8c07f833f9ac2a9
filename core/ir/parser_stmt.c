/*
 * TVMScript statements: syntax tree -> TensorIR statements.
 *
 * A statement list becomes a SEQ; a let (`x: T.int32 = v` or `x = v`) takes
 * the rest of its list as body. `with T.block(...)` bodies are read with a
 * pblock that collects the block header statements (T.axis.*, T.reads,
 * T.writes, T.where, T.init, T.block_attr, T.alloc_buffer, T.match_buffer)
 * wherever they appear in the block's own statement list; blocks without
 * T.reads / T.writes get inferred regions (tsl_block_infer_regions).
 */
#include "parser_internal.h"

#include <stdio.h>
#include <string.h>

#include "tessel/visit.h"


void ps_enter(pstate *ps, uint32_t off) {
  if (++ps->stmt_depth > PS_MAX_DEPTH) {
    ps_note(ps, "at most %d loops, blocks, ifs and lets may be nested", PS_MAX_DEPTH);
    ps_error_at(ps, TSL_EINVALID, off, "statements are nested too deeply");
  }
}

void ps_leave(pstate *ps) { ps->stmt_depth--; }

typedef struct stvec {
  const tsl_stmt **v;
  uint32_t n, cap;
} stvec;

static void push(pstate *ps, stvec *v, const tsl_stmt *s) {
  v->v = ps_grow(ps, v->v, &v->cap, v->n + 1, sizeof *v->v);
  v->v[v->n++] = s;
}

static const tsl_stmt *seq_of(pstate *ps, stvec *v) {
  if (v->n == 0)
    return tsl_stmt_evaluate(ps->arena, tsl_expr_i32(ps->arena, 0));
  return tsl_stmt_seq(ps->arena, v->n, v->v);
}

static tsl_str name_of(pstate *ps, const anode *n) {
  if (!n || n->kind != AX_NAME)
    ps_fail(ps, n, "write a plain name here", "expected a name");
  return ps_intern(ps, n->s, n->slen);
}

/* A nested statement list: new scope, not a block's own list. */
static const tsl_stmt *body_of(pstate *ps, astmt **stmts, uint32_t n, uint32_t off) {
  int top = ps->top;
  ps->top = 0;
  ps_enter(ps, off);
  ps_scope_push(ps);
  const tsl_stmt *s = ps_stmts(ps, stmts, n, NULL);
  ps_scope_pop(ps, NULL);
  ps_leave(ps);
  ps->top = top;
  return s;
}

/* The pblock a header statement applies to, or an error. */
static pblock *need_block(pstate *ps, pblock *direct, const anode *where, const char *what,
                          int allow_root) {
  if (direct && !direct->implicit && (allow_root || !direct->is_root))
    return direct;
  if (ps->cur_block && !ps->cur_block->implicit && !direct) {
    ps_note(ps, "put %s directly in the body of 'with T.block(\"%s\"):', not inside a "
                "loop or an if",
            what, ps->cur_block->name);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, where), "%s is not directly inside a block",
                what);
  }
  if (direct && direct->is_root && !direct->implicit) {
    ps_note(ps, "the root block has no iteration variables, predicate or init");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, where), "%s in the root block", what);
  }
  ps_note(ps, "%s goes directly inside a 'with T.block(\"name\"):' body", what);
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, where), "%s outside a block", what);
}

/* Integer expression `e` converted to dtype t (constant or widening). */
static const tsl_expr *int_to(pstate *ps, const tsl_expr *e, tsl_dtype t, const anode *where,
                              const char *what) {
  if (tsl_dtype_eq(e->dtype, t))
    return e;
  int64_t c;
  if (tsl_expr_is_const_int(e, &c))
    return tsl_expr_int(ps->arena, t, c);
  if (tsl_dtype_is_int(e->dtype) && e->dtype.bits < t.bits)
    return tsl_expr_cast(ps->arena, t, e);
  char a[32], b[32];
  ps_note(ps, "convert it with T.Cast(\"%s\", ...)", tsl_dtype_str(t, b));
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, where), "dtype mismatch: %s is %s, expected %s",
              what, tsl_dtype_str(e->dtype, a), b);
}

/* ---- block header statements ---- */

static void add_iter(pstate *ps, pblock *b, const tsl_var *v, tsl_range dom, int type,
                     const tsl_expr *value) {
  uint32_t cap = b->cap_iter;
  b->iters = ps_grow(ps, b->iters, &cap, b->n_iter + 1, sizeof *b->iters);
  cap = b->cap_iter;
  b->values = ps_grow(ps, b->values, &cap, b->n_iter + 1, sizeof *b->values);
  b->cap_iter = cap;
  b->iters[b->n_iter].var = v;
  b->iters[b->n_iter].dom = dom;
  b->iters[b->n_iter].iter_type = (uint32_t)type;
  b->values[b->n_iter] = value;
  b->n_iter++;
}

static void check_binding(pstate *ps, pblock *b, const tsl_expr *value, const anode *where,
                          const char *name, const char *what) {
  for (uint32_t i = 0; i < b->n_iter; i++)
    if (tsl_expr_uses_var(value, b->iters[i].var)) {
      ps_note(ps, "bind block variables to expressions of the enclosing loop variables");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, where),
                  "the %s of '%s' uses block variable '%s'", what, name,
                  b->iters[i].var->name);
    }
}

static PS_NOINLINE void axis_def(pstate *ps, pblock *direct, const anode *target, const anode *call,
                     const char *path) {
  pblock *b = need_block(ps, direct, call, path, 0);
  const char *k = path + strlen("T.axis.");
  int type;
  if (!strcmp(k, "spatial") || !strcmp(k, "S"))
    type = TSL_ITER_SPATIAL;
  else if (!strcmp(k, "reduce") || !strcmp(k, "R"))
    type = TSL_ITER_REDUCE;
  else if (!strcmp(k, "scan"))
    type = TSL_ITER_SCAN;
  else if (!strcmp(k, "opaque"))
    type = TSL_ITER_OPAQUE;
  else {
    ps_note(ps, "iterator kinds: T.axis.spatial, T.axis.reduce, T.axis.scan, T.axis.opaque, "
                "T.axis.S, T.axis.R, T.axis.remap");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call), "unknown iterator kind '%s'", path);
  }
  static const char *const kws[] = {"dom", "binding", "dtype", NULL};
  ps_check_kwargs(ps, call, path, kws);
  const anode *dom = ps_arg(ps, call, 0, "dom");
  const anode *bind = ps_arg(ps, call, 1, "binding");
  const anode *dtn = ps_arg(ps, call, 2, "dtype");
  if (!dom || !bind || call->n > 3) {
    ps_note(ps, "usage: vi = %s(128, i) or %s((0, 128), i)", path, path);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call),
                "%s takes 2 arguments (extent or (min, max), binding), got %u", path,
                call->n + call->nkw);
  }
  tsl_str name = name_of(ps, target);
  const tsl_expr *lo = NULL, *ext;
  if (dom->kind == AX_TUPLE || dom->kind == AX_LIST) {
    if (dom->n != 2)
      ps_fail(ps, dom, "write the domain as an extent or as (min, max)",
           "a domain tuple has 2 entries, got %u", dom->n);
    lo = ps_int_expr(ps, dom->items[0], "the domain start");
    const tsl_expr *hi = ps_int_expr(ps, dom->items[1], "the domain end");
    if (!tsl_dtype_eq(lo->dtype, hi->dtype))
      ps_unify_ints(ps, &lo, &hi, dom);
    ext = ps_extent(ps, lo, hi);
    ps_check_height(ps, ext, dom);
  } else {
    ext = ps_int_expr(ps, dom, "the domain extent");
  }
  pval bv = ps_expr(ps, bind);
  if (!bv.weak && !tsl_dtype_is_int(bv.e->dtype)) {
    char a[32];
    ps_fail(ps, bind, "bind block variables to integer expressions",
         "the binding of '%s' must be an integer expression, found %s", name,
         tsl_dtype_str(bv.e->dtype, a));
  }
  /* as TVM: the widest of the dtype argument (int32 by default), the
   * domain and the binding */
  tsl_dtype t = dtn ? ps_dtype_arg(ps, dtn) : TSL_INT32;
  if (!tsl_dtype_is_int(t) || t.lanes != 1)
    ps_fail(ps, dtn, "block variables are integers, e.g. dtype=\"int64\"",
         "invalid block variable dtype");
  if (ext->dtype.bits > t.bits)
    t.bits = ext->dtype.bits;
  if (lo && lo->dtype.bits > t.bits)
    t.bits = lo->dtype.bits;
  if (!bv.weak && bv.e->dtype.bits > t.bits)
    t.bits = bv.e->dtype.bits;
  char what[96];
  snprintf(what, sizeof what, "the binding of '%s'", name);
  const tsl_expr *value = ps_coerce(ps, bv, t, what);
  check_binding(ps, b, value, bind, name, "binding");
  snprintf(what, sizeof what, "the domain of '%s'", name);
  ext = int_to(ps, ext, t, dom, what);
  lo = lo ? int_to(ps, lo, t, dom, what) : tsl_expr_int(ps->arena, t, 0);
  check_binding(ps, b, ext, dom, name, "domain");
  check_binding(ps, b, lo, dom, name, "domain");
  const tsl_var *v = tsl_var_new(ps->arena, name, t);
  psym *s = ps_define(ps, name, target->tok, SYM_VAR);
  s->var_kind = VAR_ITER;
  s->var = v;
  add_iter(ps, b, v, (tsl_range){lo, ext}, type, value);
}

static PS_NOINLINE void axis_remap(pstate *ps, pblock *direct, const anode *target, const anode *call) {
  pblock *b = need_block(ps, direct, call, "T.axis.remap", 0);
  static const char *const kws[] = {"kinds", "bindings", NULL};
  ps_check_kwargs(ps, call, "T.axis.remap", kws);
  const anode *kinds = ps_arg(ps, call, 0, "kinds");
  const anode *binds = ps_arg(ps, call, 1, "bindings");
  if (!kinds || !binds || call->n > 2) {
    ps_note(ps, "usage: vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call),
                "T.axis.remap takes 2 arguments (kinds, loop variables), got %u",
                call->n + call->nkw);
  }
  if (kinds->kind != AX_STR)
    ps_fail(ps, kinds, "write the kinds as a string of S and R letters, e.g. \"SSR\"",
         "T.axis.remap kinds must be a string");
  const anode *const *vals = (const anode *const *)&binds;
  uint32_t nv = 1;
  if (binds->kind == AX_LIST || binds->kind == AX_TUPLE) {
    vals = (const anode *const *)binds->items;
    nv = binds->n;
  }
  for (uint32_t i = 0; i < kinds->slen; i++) {
    char c = kinds->s[i];
    if (c != 'S' && c != 'R') {
      ps_note(ps, "use 'S' (spatial) or 'R' (reduce) for each variable");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, kinds) + 1 + i,
                  "unknown iterator type '%c' in T.axis.remap", c >= 0x20 && c < 0x7f ? c : '?');
    }
  }
  if (kinds->slen != nv) {
    char ex[64];
    uint32_t k = 0;
    for (; k < nv && k < 60; k++)
      ex[k] = 'S';
    ex[k] = '\0';
    ps_note(ps, "give one letter per loop variable, e.g. \"%s\" for %u variable%s", ex, nv,
            nv == 1 ? "" : "s");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, kinds),
                "T.axis.remap has %u iterator type%s but %u value%s", kinds->slen,
                kinds->slen == 1 ? "" : "s", nv, nv == 1 ? "" : "s");
  }
  uint32_t nt = target->kind == AX_NAME ? 1 : target->n;
  const anode *const *tg = target->kind == AX_NAME ? &target : (const anode *const *)target->items;
  if (nt != nv) {
    ps_note(ps, "assign one block variable per loop variable");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, target),
                "%u name%s assigned from T.axis.remap of %u value%s", nt, nt == 1 ? "" : "s", nv,
                nv == 1 ? "" : "s");
  }
  for (uint32_t i = 0; i < nv; i++) {
    const anode *vn = vals[i];
    psym *ls = vn->kind == AX_NAME ? ps_lookup(ps, ps_intern(ps, vn->s, vn->slen)) : NULL;
    if (!ls || ls->kind != SYM_VAR || ls->var_kind != VAR_LOOP) {
      if (vn->kind == AX_NAME && !ls)
        (void)ps_expr(ps, vn); /* unknown name */
      ps_fail(ps, vn, "use T.axis.spatial(extent, expr) or T.axis.reduce(...) for other bindings",
           "T.axis.remap values must be loop variables");
    }
    tsl_str name = name_of(ps, tg[i]);
    const tsl_var *lv = ls->var;
    const tsl_var *v = tsl_var_new(ps->arena, name, lv->dtype);
    check_binding(ps, b, lv->ref, vn, name, "binding");
    psym *s = ps_define(ps, name, tg[i]->tok, SYM_VAR);
    s->var_kind = VAR_ITER;
    s->var = v;
    add_iter(ps, b, v, (tsl_range){ls->loop_min, ls->loop_ext},
             kinds->s[i] == 'S' ? TSL_ITER_SPATIAL : TSL_ITER_REDUCE, lv->ref);
  }
}

static PS_NOINLINE void regions(pstate *ps, pblock *b, const anode *call, int writes) {
  const char *what = writes ? "T.writes" : "T.reads";
  ps_check_kwargs(ps, call, what, NULL);
  if (writes ? b->has_writes : b->has_reads) {
    ps_note(ps, "list all regions in one %s(...)", what);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call), "%s given twice in block '%s'", what,
                b->name);
  }
  const anode *const *items = (const anode *const *)call->items;
  uint32_t n = call->n;
  if (n == 1 && (items[0]->kind == AX_LIST || items[0]->kind == AX_TUPLE)) {
    n = items[0]->n;
    items = (const anode *const *)items[0]->items;
  }
  tsl_buffer_region *r = TSL_NEW_ARRAY(ps->arena, tsl_buffer_region, n ? n : 1);
  for (uint32_t i = 0; i < n; i++)
    r[i] = ps_region(ps, items[i]);
  if (writes) {
    b->has_writes = 1;
    b->writes = r;
    b->n_writes = n;
  } else {
    b->has_reads = 1;
    b->reads = r;
    b->n_reads = n;
  }
}

static void add_alloc(pstate *ps, pblock *b, const tsl_buffer *buf) {
  b->allocs = ps_grow(ps, b->allocs, &b->cap_alloc, b->n_alloc + 1, sizeof *b->allocs);
  b->allocs[b->n_alloc++] = buf;
}

static void define_buffer(pstate *ps, const anode *target, const tsl_buffer *buf) {
  psym *s = ps_define(ps, buf->name, target->tok, SYM_BUFFER);
  s->buf = buf;
}

/* X = T.match_buffer(...) */
static PS_NOINLINE void match_buffer(pstate *ps, pblock *direct, const anode *target, const anode *call) {
  tsl_str name = name_of(ps, target);
  const anode *src = ps_arg(ps, call, 0, "param");
  if (!src) {
    ps_note(ps, "usage: X = T.match_buffer(x, (128, 128), \"float32\")");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call), "T.match_buffer needs a source");
  }
  static const char *const kws[] = {"param", "shape", "dtype", "data", "strides",
                                    "elem_offset", "scope", "align", "offset_factor",
                                    "buffer_type", "axis_separators", NULL};
  ps_check_kwargs(ps, call, "T.match_buffer", kws);
  anode trimmed = *call; /* without the 'param' keyword */
  {
    uint32_t k = 0;
    const char **kn = ps_alloc(ps, sizeof *kn * (call->nkw + 1));
    uint32_t *kl = ps_alloc(ps, sizeof *kl * (call->nkw + 1));
    uint32_t *kt = ps_alloc(ps, sizeof *kt * (call->nkw + 1));
    anode **kv = ps_alloc(ps, sizeof *kv * (call->nkw + 1));
    for (uint32_t i = 0; i < call->nkw; i++) {
      if (call->kwlen[i] == 5 && memcmp(call->kwname[i], "param", 5) == 0)
        continue;
      kn[k] = call->kwname[i];
      kl[k] = call->kwlen[i];
      kt[k] = call->kwtok[i];
      kv[k] = call->kwval[i];
      k++;
    }
    trimmed.kwname = kn;
    trimmed.kwlen = kl;
    trimmed.kwtok = kt;
    trimmed.kwval = kv;
    trimmed.nkw = k;
  }
  uint32_t first = call->n > 0 ? 1 : 0;
  psym *hs = src->kind == AX_NAME ? ps_lookup(ps, ps_intern(ps, src->s, src->slen)) : NULL;
  if (hs && hs->kind == SYM_HANDLE) {
    /* function-level: x: T.handle matched to a buffer */
    if (!ps->top || (direct && !direct->implicit)) {
      ps_note(ps, "match parameter handles at the top of the function body");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call),
                  "T.match_buffer of parameter '%s' inside a block or loop", hs->name);
    }
    if (hs->buf) {
      ps_note(ps, "match each handle parameter once");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, src),
                  "parameter '%s' is already matched to buffer '%s'", hs->name, hs->buf->name);
    }
    ps->in_bufmap = 1;
    const tsl_buffer *buf = ps_buffer_from_call(ps, name, &trimmed, first, "T.match_buffer",
                                                TSL_FLOAT32, NULL, 0);
    ps->in_bufmap = 0;
    hs->buf = buf;
    ps->func->params[hs->param_index].buffer = buf;
    if (name == hs->name) { /* A = T.match_buffer(A, ...) rebinds the name */
      hs->kind = SYM_BUFFER;
      return;
    }
    define_buffer(ps, target, buf);
    return;
  }
  if (src->kind == AX_NAME && (!hs || hs->kind != SYM_BUFFER)) {
    if (!hs) {
      char list[1024];
      ps_scope_names(ps, SYM_HANDLE, list, sizeof list);
      if (list[0])
        ps_note(ps, "handle parameters here: %s", list);
      else
        ps_note(ps, "declare the parameter as %.*s: T.handle", (int)src->slen, src->s);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, src), "unknown handle '%.*s'",
                  (int)src->slen, src->s);
    }
    ps_fail(ps, src, "match a handle parameter (x: T.handle) or a buffer region A[0:16, 0:16]",
         "cannot match a buffer to '%s'", hs->name);
  }
  /* block-level: a view of a buffer region */
  if (!direct || direct->implicit) {
    if (!direct && ps->cur_block && !ps->cur_block->implicit) {
      ps_note(ps, "put T.match_buffer directly in the body of block '%s'",
              ps->cur_block->name);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call),
                  "T.match_buffer of a region is not directly inside a block");
    }
    ps_note(ps, "match regions inside a 'with T.block(...):' body, or handle parameters "
                "(x: T.handle) at function level");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call),
                "T.match_buffer of a region outside a block");
  }
  tsl_buffer_region reg = ps_region(ps, src);
  const tsl_expr **ext = TSL_NEW_ARRAY(ps->scratch, const tsl_expr *, reg.ndim ? reg.ndim : 1);
  for (uint32_t d = 0; d < reg.ndim; d++)
    ext[d] = reg.ranges[d].extent;
  const tsl_buffer *buf = ps_buffer_from_call(ps, name, &trimmed, first, "T.match_buffer",
                                              reg.buffer->dtype, ext, reg.ndim);
  const anode *shape_node = ps_arg(ps, &trimmed, first, "shape");
  if (buf->ndim > reg.ndim) {
    ps_note(ps, "the shape needs at most %u entr%s, one per region dimension", reg.ndim,
            reg.ndim == 1 ? "y" : "ies");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, shape_node ? shape_node : call),
                "shape mismatch: the region of '%s' has %u dimension%s but the shape has %u",
                reg.buffer->name, reg.ndim, reg.ndim == 1 ? "" : "s", buf->ndim);
  }
  uint32_t lead = reg.ndim - buf->ndim;
  char want[256] = "(";
  for (uint32_t d = 0; d < reg.ndim; d++) {
    char tmp[32];
    int64_t c;
    if (tsl_expr_is_const_int(reg.ranges[d].extent, &c))
      snprintf(tmp, sizeof tmp, "%s%lld", d ? ", " : "", (long long)c);
    else
      snprintf(tmp, sizeof tmp, "%s...", d ? ", " : "");
    if (strlen(want) + strlen(tmp) + 3 < sizeof want)
      strcat(want, tmp);
  }
  strcat(want, reg.ndim == 1 ? ",)" : ")");
  for (uint32_t d = 0; d < reg.ndim; d++) {
    int64_t re, be;
    int rc = tsl_expr_is_const_int(reg.ranges[d].extent, &re);
    if (d < lead) {
      if (!rc || re != 1) {
        ps_note(ps, "the shape must match the region's extents %s", want);
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, shape_node ? shape_node : call),
                    "shape mismatch: the region of '%s' has %u dimension%s but the shape has %u",
                    reg.buffer->name, reg.ndim, reg.ndim == 1 ? "" : "s", buf->ndim);
      }
      continue;
    }
    if (rc && tsl_expr_is_const_int(buf->shape[d - lead], &be) && re != be) {
      ps_note(ps, "the shape must match the region's extents %s", want);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, shape_node ? shape_node : call),
                  "shape mismatch: dimension %u of the region of '%s' has extent %lld but the "
                  "shape says %lld",
                  d, reg.buffer->name, (long long)re, (long long)be);
    }
  }
  direct->matches =
      ps_grow(ps, direct->matches, &direct->cap_match, direct->n_match + 1, sizeof *direct->matches);
  direct->matches[direct->n_match].buffer = buf;
  direct->matches[direct->n_match].source = reg;
  direct->n_match++;
  define_buffer(ps, target, buf);
}

/* ---- let ---- */

typedef struct plet {
  const tsl_var *var;
  const tsl_expr *value;
} plet;

static int size_var_call(pstate *ps, const anode *v, tsl_dtype *t) {
  char path[256];
  if (!v || v->kind != AX_CALL || !ps_dotted(ps, v->a, path, sizeof path) ||
      strncmp(path, "T.", 2) != 0)
    return 0;
  if (strcmp(path, "T.var") == 0) {
    /* older spelling of a size variable: n = T.var("int32") */
    static const char *const var_kws[] = {"dtype", NULL};
    ps_check_kwargs(ps, v, path, var_kws);
    ps_check_arity(ps, v, path, 0, 1, "T.var(\"int32\")");
    const anode *dt = ps_arg(ps, v, 0, "dtype");
    if (!dt)
      ps_fail(ps, v, "write n = T.var(\"int32\") or n = T.int32()", "T.var needs a dtype");
    *t = ps_dtype_arg(ps, dt);
    return 1;
  }
  if (v->n != 0)
    return 0;
  if (strcmp(path + 2, "handle") == 0 || !tsl_dtype_parse(path + 2, strlen(path + 2), t) ||
      tsl_dtype_is_void(*t))
    return 0;
  static const char *const kws[] = {"is_size_var", NULL};
  ps_check_kwargs(ps, v, path, kws);
  return 1;
}

static void define_size_var(pstate *ps, const anode *target, tsl_dtype t) {
  tsl_str name = name_of(ps, target);
  if (!tsl_dtype_is_int(t) && !tsl_dtype_is_float(t) && !tsl_dtype_is_bool(t))
    ps_fail(ps, target, "declare size variables as n = T.int32() or n = T.int64()",
         "invalid variable dtype");
  psym *s = ps_define(ps, name, target->tok, SYM_VAR);
  s->var_kind = VAR_SIZE;
  s->var = tsl_var_new(ps->arena, name, t);
  pfunc *f = ps->func;
  f->sizes = ps_grow(ps, f->sizes, &f->cap_size, f->n_size + 1, sizeof *f->sizes);
  memset(&f->sizes[f->n_size], 0, sizeof f->sizes[0]);
  f->sizes[f->n_size].var = s->var;
  s->size_index = f->n_size++;
}

/* ---- statements ---- */

static PS_NOINLINE void store(pstate *ps, const anode *target, const anode *val,
                               stvec *out) {
  const tsl_expr **idx;
  uint16_t lanes;
  const tsl_buffer *b = ps_access(ps, target, &idx, &lanes);
  tsl_dtype t = b->dtype;
  t.lanes = (uint16_t)(t.lanes * lanes);
  pval value = ps_expr(ps, val);
  char what[128];
  snprintf(what, sizeof what, "the value stored into '%s'", b->name);
  const tsl_expr *v = ps_store_value(ps, value, t, what);
  push(ps, out, tsl_stmt_store(ps->arena, b, v, target->n, idx));
}

static PS_NOINLINE int assign(pstate *ps, const astmt *s, pblock *direct, stvec *out, plet *let) {
  const anode *tg = s->target, *val = s->value;
  char path[256];
  if (tg->kind == AX_SUBSCRIPT) {
    store(ps, tg, val, out);
    return 0;
  }
  if (tg->kind == AX_ATTR)
    ps_fail(ps, tg, "assign to names and buffer elements", "cannot assign to an attribute");
  int dotted = val->kind == AX_CALL && ps_dotted(ps, val->a, path, sizeof path);
  if (tg->kind == AX_TUPLE || tg->kind == AX_LIST) {
    for (uint32_t i = 0; i < tg->n; i++)
      (void)name_of(ps, tg->items[i]);
    if (dotted && strcmp(path, "T.axis.remap") == 0) {
      axis_remap(ps, direct, tg, val);
      return 0;
    }
    if (val->kind == AX_TUPLE && val->n == tg->n) {
      tsl_dtype t;
      for (uint32_t i = 0; i < val->n; i++)
        if (!size_var_call(ps, val->items[i], &t))
          ps_fail(ps, val->items[i], "declare size variables as m, n = T.int64(), T.int64()",
               "tuple assignment is only supported for size variables and T.axis.remap");
      for (uint32_t i = 0; i < val->n; i++) {
        size_var_call(ps, val->items[i], &t);
        define_size_var(ps, tg->items[i], t);
      }
      return 0;
    }
    if (val->kind == AX_TUPLE) {
      ps_note(ps, "assign as many values as names");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, val), "%u names but %u values", tg->n,
                  val->n);
    }
    ps_fail(ps, val, "unpack only T.axis.remap(...) or size variables (m, n = T.int64(), T.int64())",
         "cannot unpack this value");
  }
  tsl_str name = name_of(ps, tg);
  if (dotted) {
    if (strcmp(path, "T.alloc_buffer") == 0) {
      pblock *b = direct ? direct : ps->cur_block;
      if (!b) {
        ps_note(ps, "allocate buffers at function level or inside a block");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, val), "T.alloc_buffer outside a block");
      }
      const tsl_buffer *buf =
          ps_buffer_from_call(ps, name, val, 0, "T.alloc_buffer", TSL_FLOAT32, NULL, 0);
      define_buffer(ps, tg, buf);
      add_alloc(ps, b, buf);
      return 0;
    }
    if (strcmp(path, "T.match_buffer") == 0) {
      match_buffer(ps, direct, tg, val);
      return 0;
    }
    if (strcmp(path, "T.axis.remap") == 0) {
      axis_remap(ps, direct, tg, val);
      return 0;
    }
    if (strncmp(path, "T.axis.", 7) == 0) {
      axis_def(ps, direct, tg, val, path);
      return 0;
    }
    if (strcmp(path, "T.decl_buffer") == 0 || strcmp(path, "T.Buffer") == 0 ||
        strcmp(path, "T.buffer_decl") == 0)
      ps_fail(ps, val, "use T.alloc_buffer or T.match_buffer", "%s is not supported", path);
    if (strcmp(path, "T.allocate_const") == 0 || strcmp(path, "T.allocate") == 0)
      ps_fail(ps, val,
              "tessel's TensorIR has no allocation statements; declare the buffer with "
              "T.alloc_buffer and fill it in a block",
              "%s is not supported", path);
    tsl_dtype t;
    if (size_var_call(ps, val, &t)) {
      define_size_var(ps, tg, t);
      return 0;
    }
  }
  /* x = expr: a let binding over the rest of the statement list */
  const tsl_expr *e = ps_typed(ps, ps_expr(ps, val));
  if (tsl_dtype_is_void(e->dtype))
    ps_fail(ps, val, "bind only expressions with a value", "cannot bind a void value");
  const tsl_var *v = tsl_var_new(ps->arena, name, e->dtype);
  psym *sym = ps_define(ps, name, tg->tok, SYM_VAR);
  sym->var_kind = VAR_LET;
  sym->var = v;
  let->var = v;
  let->value = e;
  return 1;
}

static PS_NOINLINE int annassign(pstate *ps, const astmt *s, plet *let) {
  tsl_str name = name_of(ps, s->target);
  char path[256];
  const anode *ann = s->ann;
  if (ann->kind == AX_CALL && ann->n == 0 && ann->nkw == 0)
    ann = ann->a;
  tsl_dtype t;
  if (!ps_dotted(ps, ann, path, sizeof path) || strncmp(path, "T.", 2) != 0 ||
      !tsl_dtype_parse(path + 2, strlen(path + 2), &t) || tsl_dtype_is_void(t)) {
    if ((ann->kind == AX_CALL || ann->kind == AX_SUBSCRIPT) && ps_dotted(ps, ann->a, path, sizeof path) &&
        strcmp(path, "T.Buffer") == 0)
      ps_fail(ps, s->ann, "allocate buffers with X = T.alloc_buffer(shape, dtype)",
           "buffer declarations in the body are not supported");
    ps_note(ps, "annotate with a dtype, e.g. %s: T.int32 = ...; valid dtypes: %s", name,
            tsl_dtype_valid_names());
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, s->ann), "unsupported annotation");
  }
  if (!s->value)
    ps_fail(ps, s->target, "give the variable a value: x: T.int32 = 0",
         "variable '%s' declared without a value", name);
  char what[128];
  snprintf(what, sizeof what, "the value of '%s'", name);
  pval pv = ps_expr(ps, s->value);
  const tsl_expr *e = ps_coerce(ps, pv, t, what);
  const tsl_var *v = tsl_var_new(ps->arena, name, t);
  psym *sym = ps_define(ps, name, s->target->tok, SYM_VAR);
  sym->var_kind = VAR_LET;
  sym->var = v;
  let->var = v;
  let->value = e;
  return 1;
}

static PS_NOINLINE void expr_stmt(pstate *ps, const astmt *s, pblock *direct, stvec *out) {
  const anode *v = s->value;
  char path[256];
  if (v->kind == AX_STR)
    return; /* docstring */
  if (v->kind == AX_CALL && ps_dotted(ps, v->a, path, sizeof path)) {
    if (strcmp(path, "T.evaluate") == 0) {
      ps_check_kwargs(ps, v, path, NULL);
      ps_check_arity(ps, v, path, 1, 1, "T.evaluate(expr)");
      push(ps, out, tsl_stmt_evaluate(ps->arena, ps_typed(ps, ps_expr(ps, v->items[0]))));
      return;
    }
    if (strcmp(path, "T.func_attr") == 0) {
      ps_check_kwargs(ps, v, path, NULL);
      ps_check_arity(ps, v, path, 1, 1, "T.func_attr({\"global_symbol\": \"main\"})");
      if (!ps->top || (direct && !direct->implicit)) {
        ps_note(ps, "write T.func_attr({...}) at the top of the function body");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "T.func_attr inside a block or loop");
      }
      if (ps->func->has_attrs) {
        ps_note(ps, "put all attributes into one T.func_attr({...})");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "T.func_attr given twice");
      }
      ps->func->attrs = ps_attrs(ps, v->items[0]);
      ps->func->has_attrs = 1;
      return;
    }
    if (strcmp(path, "T.reads") == 0 || strcmp(path, "T.writes") == 0) {
      pblock *b = need_block(ps, direct, v, path, 1);
      regions(ps, b, v, path[2] == 'w');
      return;
    }
    if (strcmp(path, "T.where") == 0) {
      pblock *b = need_block(ps, direct, v, path, 0);
      ps_check_kwargs(ps, v, path, NULL);
      ps_check_arity(ps, v, path, 1, 1, "T.where(cond)");
      if (b->predicate) {
        ps_note(ps, "combine the conditions with 'and' in one T.where");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "T.where given twice in block '%s'",
                    b->name);
      }
      b->predicate = ps_bool_expr(ps, v->items[0], "the T.where predicate");
      for (uint32_t i = 0; i < b->n_iter; i++)
        if (tsl_expr_uses_var(b->predicate, b->iters[i].var)) {
          ps_note(ps, "the predicate is evaluated outside the block: write it with the loop "
                      "variables");
          ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v->items[0]),
                      "T.where uses block variable '%s'", b->iters[i].var->name);
        }
      return;
    }
    if (strcmp(path, "T.block_attr") == 0) {
      pblock *b = need_block(ps, direct, v, path, 1);
      ps_check_kwargs(ps, v, path, NULL);
      ps_check_arity(ps, v, path, 1, 1, "T.block_attr({\"key\": value})");
      if (b->has_attrs) {
        ps_note(ps, "put all annotations into one T.block_attr({...})");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "T.block_attr given twice");
      }
      b->attrs = ps_attrs(ps, v->items[0]);
      b->has_attrs = 1;
      return;
    }
    if (strcmp(path, "T.init") == 0 || strcmp(path, "T.block") == 0 ||
        strcmp(path, "T.LetStmt") == 0) {
      ps_note(ps, "write 'with %s(...):' followed by an indented body", path);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "%s must be used in a with statement",
                  path);
    }
  }
  pval p = ps_expr(ps, v);
  push(ps, out, tsl_stmt_evaluate(ps->arena, ps_typed(ps, p)));
}

/* ---- loops ---- */

static const char *const thread_tags[] = {
    "blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y",
    "threadIdx.z", "vthread", "vthread.x", "vthread.y", "vthread.z", NULL};

/* T.<name> loop iterators: the spellings of TSL_FOR_KINDS, plus T.grid. */
static int loop_kind_of(const char *name, int *for_kind, int *is_grid) {
  if (!strcmp(name, "grid")) {
    *is_grid = 1;
    return 1;
  }
  for (int k = 0; k < TSL_FOR_KIND_COUNT; k++) {
    if (!strcmp(name, tsl_for_kind_name((tsl_for_kind)k))) {
      *for_kind = k;
      return 1;
    }
  }
  return 0;
}

static PS_NOINLINE const tsl_stmt *for_stmt(pstate *ps, const astmt *s) {
  const anode *it = s->value;
  char path[256];
  int is_range = 0, is_grid = 0, fk = TSL_FOR_SERIAL;
  static const char *const valid =
      "loops iterate over range(...), T.serial, T.parallel, T.vectorized, T.unroll, "
      "T.thread_binding or T.grid";
  if (it->kind != AX_CALL)
    ps_fail(ps, it, valid, "unsupported loop iterator");
  if (ps_is_name(it->a, "range") && !ps_lookup(ps, ps_intern(ps, "range", 5))) {
    is_range = 1;
    strcpy(path, "range");
  } else if (ps_dotted(ps, it->a, path, sizeof path) && strncmp(path, "T.", 2) == 0 &&
             loop_kind_of(path + 2, &fk, &is_grid)) {
    /* T.<for kind> or T.grid */
  } else {
    char *shown = ps_alloc(ps, 256);
    if (!ps_dotted(ps, it->a, shown, 256) && it->a->kind == AX_NAME)
      snprintf(shown, 256, "%.*s", (int)it->a->slen, it->a->s);
    const char *f = strncmp(shown, "T.", 2) == 0 ? shown + 2 : shown;
    const char *best = NULL;
    for (int k = 0; k <= TSL_FOR_KIND_COUNT; k++) {
      const char *name = k < TSL_FOR_KIND_COUNT ? tsl_for_kind_name((tsl_for_kind)k) : "grid";
      if (ps_edit_distance(f, strlen(f), name, strlen(name)) <= 2)
        best = name;
    }
    if (best)
      ps_note(ps, "did you mean T.%s? %s", best, valid);
    else
      ps_note(ps, "%s", valid);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, it), "unknown loop kind '%s'",
                shown[0] ? shown : "?");
  }
  /* loop variables */
  const anode *tg = s->target;
  uint32_t nt = 1;
  const anode *const *tgs = &tg;
  if (tg->kind == AX_TUPLE || tg->kind == AX_LIST) {
    nt = tg->n;
    tgs = (const anode *const *)tg->items;
  }
  for (uint32_t i = 0; i < nt; i++)
    (void)name_of(ps, tgs[i]);
  if (!is_grid && nt != 1) {
    ps_note(ps, "use T.grid(a, b, ...) to write several nested loops in one line");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, tg), "%s yields one loop variable, got %u",
                path, nt);
  }
  const tsl_expr **mins = TSL_NEW_ARRAY(ps->scratch, const tsl_expr *, nt);
  const tsl_expr **exts = TSL_NEW_ARRAY(ps->scratch, const tsl_expr *, nt);
  tsl_attrs ann = {0, NULL};
  tsl_str tag = NULL;
  if (is_grid) {
    ps_check_kwargs(ps, it, path, NULL);
    if (it->n != nt) {
      ps_note(ps, "give one extent per loop variable");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, it),
                  "T.grid has %u extent%s but %u loop variable%s", it->n, it->n == 1 ? "" : "s",
                  nt, nt == 1 ? "" : "s");
    }
    for (uint32_t i = 0; i < nt; i++) {
      exts[i] = ps_int_expr(ps, it->items[i], "a loop extent");
      mins[i] = tsl_expr_int(ps->arena, exts[i]->dtype, 0);
    }
  } else {
    static const char *const kw_range[] = {NULL};
    static const char *const kw_loop[] = {"annotations", NULL};
    static const char *const kw_thread[] = {"thread", "annotations", NULL};
    ps_check_kwargs(ps, it, path, is_range ? kw_range
                                  : fk == TSL_FOR_THREAD_BINDING ? kw_thread
                                                     : kw_loop);
    uint32_t np = it->n;
    if (fk == TSL_FOR_THREAD_BINDING) {
      const anode *th = ps_arg(ps, it, 99, "thread");
      if (!th && np >= 2 && it->items[np - 1]->kind == AX_STR)
        th = it->items[--np];
      if (!th) {
        ps_note(ps, "usage: T.thread_binding(128, thread=\"threadIdx.x\")");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, it), "T.thread_binding needs a thread");
      }
      tag = ps_str_arg(ps, th, "the thread tag");
      int okt = 0;
      for (int k = 0; thread_tags[k]; k++)
        okt |= strcmp(tag, thread_tags[k]) == 0;
      if (!okt) {
        char *list = ps_alloc(ps, 256);
        for (int k = 0; thread_tags[k]; k++)
          ps_list_add(list, 256, thread_tags[k]);
        ps_note(ps, "valid threads: %s", list);
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, th), "unknown thread tag \"%s\"", tag);
      }
    }
    if (is_range && np == 3) {
      ps_note(ps, "write the loop with step 1 and scale the variable instead");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, it->items[2]),
                  "range with a step is not supported");
    }
    if (np < 1 || np > 2) {
      ps_note(ps, "usage: for i in %s(n): or for i in %s(start, stop):", path, path);
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, it),
                  "%s takes 1 or 2 positional arguments, got %u", path, np);
    }
    if (np == 1) {
      exts[0] = ps_int_expr(ps, it->items[0], "the loop extent");
      mins[0] = tsl_expr_int(ps->arena, exts[0]->dtype, 0);
    } else {
      const tsl_expr *lo = ps_int_expr(ps, it->items[0], "the loop start");
      const tsl_expr *hi = ps_int_expr(ps, it->items[1], "the loop stop");
      if (!tsl_dtype_eq(lo->dtype, hi->dtype))
        ps_unify_ints(ps, &lo, &hi, it);
      mins[0] = lo;
      exts[0] = ps_extent(ps, lo, hi);
      if (!tsl_dtype_eq(exts[0]->dtype, lo->dtype))
        exts[0] = int_to(ps, exts[0], lo->dtype, it, "the loop extent");
      ps_check_height(ps, exts[0], it);
    }
    const anode *an = ps_arg(ps, it, 99, "annotations");
    if (an && an->kind != AX_NONE)
      ann = ps_attrs(ps, an);
  }
  int top = ps->top;
  ps->top = 0;
  ps_scope_push(ps);
  const tsl_var **vars = TSL_NEW_ARRAY(ps->scratch, const tsl_var *, nt);
  for (uint32_t i = 0; i < nt; i++) {
    ps_enter(ps, ps_node_off(ps, tgs[i]));
    tsl_str name = name_of(ps, tgs[i]);
    vars[i] = tsl_var_new(ps->arena, name, exts[i]->dtype);
    psym *sym = ps_define(ps, name, tgs[i]->tok, SYM_VAR);
    sym->var_kind = VAR_LOOP;
    sym->var = vars[i];
    sym->loop_min = mins[i];
    sym->loop_ext = exts[i];
  }
  const tsl_stmt *body = ps_stmts(ps, s->body, s->nbody, NULL);
  for (uint32_t i = nt; i-- > 0;) {
    body = tsl_stmt_for(ps->arena, vars[i], mins[i], exts[i], (tsl_for_kind)fk, tag,
                        i == nt - 1 ? ann : (tsl_attrs){0, NULL}, body);
    ps_leave(ps);
  }
  ps_scope_pop(ps, NULL);
  ps->top = top;
  return body;
}

/* ---- blocks ---- */

const tsl_block *ps_finish_block(pstate *ps, pblock *b, const tsl_stmt *body) {
  tsl_arena *a = ps->arena;
  tsl_block *blk = TSL_NEW(a, tsl_block);
  blk->name = ps_intern(ps, b->name, strlen(b->name));
  blk->n_iter_vars = b->n_iter;
  blk->iter_vars = b->n_iter ? tsl_arena_dup(a, b->iters, sizeof *b->iters * b->n_iter) : NULL;
  blk->n_reads = b->n_reads;
  blk->reads = b->reads;
  blk->n_writes = b->n_writes;
  blk->writes = b->writes;
  blk->init = b->init;
  blk->body = body;
  blk->n_alloc_buffers = b->n_alloc;
  blk->alloc_buffers =
      b->n_alloc ? tsl_arena_dup(a, b->allocs, sizeof *b->allocs * b->n_alloc) : NULL;
  blk->n_match_buffers = b->n_match;
  blk->match_buffers =
      b->n_match ? tsl_arena_dup(a, b->matches, sizeof *b->matches * b->n_match) : NULL;
  blk->annotations = b->attrs;
  if (!b->is_root && (!b->has_reads || !b->has_writes)) {
    tsl_buffer_region *r = NULL, *w = NULL;
    uint32_t nr = 0, nw = 0;
    tsl_diag *d = ps_alloc(ps, sizeof *d);
    int rc = tsl_block_infer_regions(a, blk, &r, &nr, &w, &nw, d);
    if (rc) {
      ps_note(ps, "declare the regions with T.reads(...) and T.writes(...)");
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, b->tok),
                  "cannot infer the regions accessed by block '%s': %s", b->name, d->text);
    }
    if (!b->has_reads) {
      blk->reads = r;
      blk->n_reads = nr;
    }
    if (!b->has_writes) {
      blk->writes = w;
      blk->n_writes = nw;
    }
  }
  return blk;
}

const tsl_stmt *ps_block_stmt(pstate *ps, const astmt *w, int is_root) {
  const anode *call = w->value;
  static const char *const kws[] = {"name", "no_realize", NULL};
  ps_check_kwargs(ps, call, "T.block", kws);
  const anode *nm = ps_arg(ps, call, 0, "name");
  if (call->n > 1 || (nm && nm->kind == AX_LIST)) {
    ps_note(ps, "write with T.block(\"name\"): and bind variables with T.axis.remap / "
                "T.axis.spatial inside");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, call),
                "T.block takes one argument, the block name");
  }
  if (w->target) {
    ps_note(ps, "write with T.block(\"name\"): and bind variables with T.axis.remap inside");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, w->target),
                "'with T.block(...) as ...' is not supported");
  }
  const char *name = nm ? ps_str_arg(ps, nm, "the block name") : ps_intern(ps, "", 0);
  pblock b;
  memset(&b, 0, sizeof b);
  b.name = name;
  b.tok = call->tok;
  b.is_root = is_root;
  int top = ps->top;
  pblock *outer = ps->cur_block;
  ps->top = 0;
  ps->cur_block = &b;
  ps_enter(ps, ps_node_off(ps, call));
  ps_scope_push(ps);
  const tsl_stmt *body = ps_stmts(ps, w->body, w->nbody, &b);
  ps_scope_pop(ps, name);
  ps->cur_block = outer;
  ps->top = top;
  const tsl_block *blk = ps_finish_block(ps, &b, body);
  const tsl_stmt *r = tsl_stmt_block_realize(ps->arena, b.n_iter, b.values, b.predicate, blk);
  ps_leave(ps);
  return r;
}

static PS_NOINLINE const tsl_stmt *with_stmt(pstate *ps, const astmt *s, pblock *direct) {
  const anode *v = s->value;
  char path[256];
  static const char *const valid =
      "with-statements are: with T.block(\"name\"):, with T.init():, with T.LetStmt(value) as x:";
  if (v->kind != AX_CALL || !ps_dotted(ps, v->a, path, sizeof path))
    ps_fail(ps, v, valid, "unsupported with-statement");
  if (strcmp(path, "T.block") == 0)
    return ps_block_stmt(ps, s, 0);
  if (strcmp(path, "T.init") == 0) {
    if (!direct && !(ps->cur_block && !ps->cur_block->implicit)) {
      ps_note(ps, "write 'with T.init():' directly inside a 'with T.block(...):' body");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "T.init outside a block");
    }
    pblock *b = need_block(ps, direct, v, "T.init", 0);
    ps_check_kwargs(ps, v, path, NULL);
    ps_check_arity(ps, v, path, 0, 0, "with T.init():");
    if (b->init) {
      ps_note(ps, "a block has one init; merge the statements");
      ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "T.init given twice in block '%s'",
                  b->name);
    }
    b->init = body_of(ps, s->body, s->nbody, ps_node_off(ps, v));
    return NULL;
  }
  if (strcmp(path, "T.LetStmt") == 0) {
    static const char *const kws[] = {"value", NULL};
    ps_check_kwargs(ps, v, path, kws);
    const anode *val = ps_arg(ps, v, 0, "value");
    if (!val || v->n > 1)
      ps_check_arity(ps, v, path, 1, 1, "with T.LetStmt(value) as x:");
    if (!s->target || s->target->kind != AX_NAME)
      ps_fail(ps, v, "write with T.LetStmt(value) as x:", "T.LetStmt needs 'as name'");
    const tsl_expr *e = ps_typed(ps, ps_expr(ps, val));
    tsl_str name = ps_intern(ps, s->target->s, s->target->slen);
    const tsl_var *var = tsl_var_new(ps->arena, name, e->dtype);
    int top = ps->top;
    ps->top = 0;
    ps_enter(ps, ps_node_off(ps, v));
    ps_scope_push(ps);
    psym *sym = ps_define(ps, name, s->target->tok, SYM_VAR);
    sym->var_kind = VAR_LET;
    sym->var = var;
    const tsl_stmt *body = ps_stmts(ps, s->body, s->nbody, NULL);
    ps_scope_pop(ps, NULL);
    ps_leave(ps);
    ps->top = top;
    return tsl_stmt_let(ps->arena, var, e, body);
  }
  ps_note(ps, "%s", valid);
  ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, v), "unknown context manager '%s'", path);
}

static PS_NOINLINE const tsl_stmt *if_stmt(pstate *ps, const astmt *s) {
  const tsl_expr *c = ps_bool_expr(ps, s->value, "the if condition");
  const tsl_stmt *then_s = body_of(ps, s->body, s->nbody, ps_tok_off(ps, s->tok));
  const tsl_stmt *else_s = NULL;
  if (s->norelse)
    else_s = body_of(ps, s->orelse, s->norelse, ps_tok_off(ps, s->else_tok));
  return tsl_stmt_if(ps->arena, c, then_s, else_s);
}

const tsl_stmt *ps_stmts(pstate *ps, astmt **stmts, uint32_t n, pblock *direct) {
  stvec out = {0};
  for (uint32_t i = 0; i < n; i++) {
    const astmt *s = stmts[i];
    plet let = {0};
    int is_let = 0;
    switch ((astmt_kind)s->kind) {
    case AS_PASS:
    case AS_IMPORT:
      break;
    case AS_RETURN:
      if (s->value) {
        ps_note(ps, "prim_funcs return nothing; write results into output buffers");
        ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "return with a value");
      }
      break;
    case AS_EXPR:
      expr_stmt(ps, s, direct, &out);
      break;
    case AS_ASSIGN:
      is_let = assign(ps, s, direct, &out, &let);
      break;
    case AS_ANNASSIGN:
      is_let = annassign(ps, s, &let);
      break;
    case AS_AUGASSIGN: {
      if (s->target->kind != AX_SUBSCRIPT) {
        ps_note(ps, "variables are immutable in TensorIR; update a buffer element instead");
        ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, s->target),
                    "augmented assignment to a variable");
      }
      anode load = *s->target;
      anode bin;
      memset(&bin, 0, sizeof bin);
      bin.kind = AX_BINOP;
      bin.op = s->op;
      bin.tok = s->target->tok;
      bin.optok = s->tok;
      /* find the operator token: the first token after the target */
      bin.optok = s->target->end_tok + 1;
      bin.a = &load;
      bin.b = s->value;
      store(ps, s->target, &bin, &out);
      break;
    }
    case AS_FOR:
      push(ps, &out, for_stmt(ps, s));
      break;
    case AS_WITH: {
      const tsl_stmt *r = with_stmt(ps, s, direct);
      if (r)
        push(ps, &out, r);
      break;
    }
    case AS_IF:
      push(ps, &out, if_stmt(ps, s));
      break;
    case AS_FUNCDEF:
    case AS_CLASSDEF:
      ps_note(ps, "define functions at module level or inside the @I.ir_module class");
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "nested %s are not supported",
                  s->kind == AS_FUNCDEF ? "functions" : "classes");
    case AS_UNSUPPORTED:
      ps_note(ps, "use for, with, if, assignments and T.* calls");
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "unsupported statement");
    }
    if (is_let) {
      ps_enter(ps, ps_tok_off(ps, s->tok));
      const tsl_stmt *body = ps_stmts(ps, (astmt **)stmts + i + 1, n - i - 1, direct);
      ps_leave(ps);
      push(ps, &out, tsl_stmt_let(ps->arena, let.var, let.value, body));
      break;
    }
  }
  return seq_of(ps, &out);
}
