/*
 * Relax functions of a model (tessel/relax.h): @R.function definitions of
 * an @I.ir_module class, built after its prim_funcs so that calls can be
 * checked against them. Struct info is inferred and checked here (rx_infer.c
 * has the operators' rules); errors are located like every parse error.
 */
#include "parser_internal.h"
#include "rx_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbols ------------------------------------------------------------- */

enum { RS_VAR, RS_SIZE, RS_CLS };

typedef struct rsym {
  int kind;
  tsl_str name;
  uint32_t tok;
  tsl_rx_var *var;      /* RS_VAR */
  const tsl_var *size;  /* RS_SIZE */
  int block;            /* RS_VAR of a dataflow block: its number, else -1 */
  int dead;             /* the dataflow block ended without outputting it */
  uint32_t end_line;    /* dead: the line where its block ends */
} rsym;

struct prx {
  tsl_model *model;
  const astmt **defs;
  uint32_t n_defs;
  uint32_t next_id;
  /* the function being built */
  rsym *syms;
  uint32_t nsyms, capsyms;
  tsl_vec sizes;   /* const tsl_var * */
  int block;       /* the dataflow block being read, -1 outside */
  int n_blocks_seen;
  int in_signature;
};

static rsym *rx_lookup(prx *rx, tsl_str name) {
  for (uint32_t i = rx->nsyms; i-- > 0;)
    if (rx->syms[i].name == name)
      return &rx->syms[i];
  return NULL;
}

static uint32_t line_of_tok(const pstate *ps, uint32_t tok) {
  uint32_t off = ps_tok_off(ps, tok), line = 1;
  for (uint32_t k = 0; k < off && k < ps->len; k++)
    line += ps->src[k] == '\n';
  return line;
}

static rsym *rx_define(pstate *ps, int kind, tsl_str name, uint32_t tok) {
  prx *rx = ps->rx;
  static const char *const reserved[] = {"R", "T", "I", "cls", "metadata", NULL};
  for (int k = 0; kind != RS_CLS && reserved[k]; k++)
    if (!strcmp(name, reserved[k])) {
      ps_note(ps, "R, T, I, cls and metadata are names the printed model uses; choose another "
                  "name");
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, tok), "'%s' cannot name a value", name);
    }
  for (uint32_t i = 0; kind != RS_CLS && i < rx->nsyms; i++)
    if (rx->syms[i].kind == RS_CLS && rx->syms[i].name == name) {
      ps_note(ps, "'%s' names the module class here; choose another name", name);
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, tok), "'%s' cannot name a value", name);
    }
  rsym *old = rx_lookup(rx, name);
  if (old && !(old->kind == RS_VAR && old->dead)) {
    ps_note(ps, "'%s' is already defined on line %u; give each value its own name", name,
            line_of_tok(ps, old->tok));
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, tok), "redefinition of '%s'", name);
  }
  rx->syms = ps_grow(ps, rx->syms, &rx->capsyms, rx->nsyms + 1, sizeof *rx->syms);
  rsym *s = &rx->syms[rx->nsyms++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->name = name;
  s->tok = tok;
  s->block = -1;
  return s;
}

static tsl_str node_name(pstate *ps, const anode *n) { return ps_intern(ps, n->s, n->slen); }

/* "R.x.y" when `n` is a dotted name rooted at the relax alias; else 0. */
static int rx_path(pstate *ps, const anode *n, char *buf, size_t cap) {
  const anode *parts[8];
  int np = 0;
  while (n && n->kind == AX_ATTR && np < 8) {
    parts[np++] = n;
    n = n->a;
  }
  if (!n || n->kind != AX_NAME || (ps->rx && rx_lookup(ps->rx, node_name(ps, n))))
    return 0;
  tsl_str root = node_name(ps, n);
  int is_r = 0;
  for (uint32_t i = 0; i < ps->n_relax_alias; i++)
    is_r |= ps->relax_alias[i] == root;
  if (!is_r)
    return 0;
  size_t len = (size_t)snprintf(buf, cap, "R");
  for (int i = np; i-- > 0 && len < cap;)
    len += (size_t)snprintf(buf + len, cap - len, ".%.*s", (int)parts[i]->slen, parts[i]->s);
  return len < cap;
}

/* ---- struct info ------------------------------------------------------- */

static const tsl_expr *dim_of(pstate *ps, const anode *n);

static const tsl_expr *size_var(pstate *ps, const anode *n, tsl_str name) {
  prx *rx = ps->rx;
  rsym *s = rx_lookup(rx, name);
  if (s && s->kind == RS_SIZE)
    return tsl_expr_var(s->size);
  if (s)
    ps_fail(ps, n, "a dimension is an integer, a symbolic size (\"n\" in a parameter, n = "
                   "T.int64() in the body) or arithmetic of those",
            "'%s' is a value, not a symbolic size", name);
  if (!rx->in_signature || n->kind != AX_STR)
    ps_fail(ps, n, "name a new symbolic size as a string in a parameter's shape (\"n\"), or "
                   "declare it with n = T.int64()",
            "unknown symbolic size '%s'", name);
  /* the body declares it as `name = T.int64()`: an identifier that is not
   * one of the names the printed model uses itself */
  int ident = (name[0] == '_' || (name[0] | 32) >= 'a') && (name[0] | 32) <= 'z';
  for (const char *c = name; ident && *c; c++)
    ident = *c == '_' || ((*c | 32) >= 'a' && (*c | 32) <= 'z') || (*c >= '0' && *c <= '9');
  static const char *const reserved[] = {"R", "T", "I", "cls", "metadata", NULL};
  for (int k = 0; ident && reserved[k]; k++)
    ident = strcmp(name, reserved[k]) != 0;
  if (!ident)
    ps_fail(ps, n, "a symbolic size is named by an identifier (letters, digits, _) other than "
                   "R, T, I, cls and metadata",
            "invalid symbolic size name \"%s\"", name);
  const tsl_var *v = tsl_var_new(ps->arena, name, TSL_INT64);
  rsym *d = rx_define(ps, RS_SIZE, name, n->tok);
  d->size = v;
  TSL_VEC_PUSH(&rx->sizes, const tsl_var *, v);
  return tsl_expr_var(v);
}

static const tsl_expr *dim_of(pstate *ps, const anode *n) {
  switch (n->kind) {
  case AX_INT:
    if (n->ival < 0)
      break;
    return tsl_expr_int(ps->arena, TSL_INT64, n->ival);
  case AX_STR:
    return size_var(ps, n, ps_intern(ps, n->s, n->slen));
  case AX_NAME:
    return size_var(ps, n, node_name(ps, n));
  case AX_BINOP: {
    tsl_expr_kind k = n->op == OP_PLUS ? TSL_EXPR_ADD : n->op == OP_MINUS ? TSL_EXPR_SUB
                      : n->op == OP_STAR ? TSL_EXPR_MUL : n->op == OP_DSLASH ? TSL_EXPR_FLOORDIV
                      : TSL_EXPR_KIND_COUNT;
    if (k == TSL_EXPR_KIND_COUNT)
      break;
    const tsl_expr *a = dim_of(ps, n->a), *b = dim_of(ps, n->b);
    int64_t x, y, r = 0;
    if (tsl_expr_is_const_int(a, &x) && tsl_expr_is_const_int(b, &y)) {
      /* constants fold: 7 * 4 is the dimension 28 */
      int bad = k == TSL_EXPR_ADD   ? __builtin_add_overflow(x, y, &r)
                : k == TSL_EXPR_SUB ? __builtin_sub_overflow(x, y, &r) || r < 0
                : k == TSL_EXPR_MUL ? __builtin_mul_overflow(x, y, &r)
                                    : (y <= 0 || ((r = x / y), 0));
      if (bad)
        ps_fail(ps, n, "a dimension is a non-negative integer", "invalid tensor dimension");
      return tsl_expr_int(ps->arena, TSL_INT64, r);
    }
    return tsl_expr_binary(ps->arena, k, a, b);
  }
  default:
    break;
  }
  ps_fail(ps, n, "a dimension is a non-negative integer, a symbolic size or +, -, *, // of "
                 "those", "invalid tensor dimension");
}

static const anode *kw(const anode *call, const char *name) {
  size_t l = strlen(name);
  for (uint32_t k = 0; k < call->nkw; k++)
    if (call->kwlen[k] == l && !memcmp(call->kwname[k], name, l))
      return call->kwval[k];
  return NULL;
}


/* The dims of a shape tuple / list node. */
static const tsl_expr *const *dims_of(pstate *ps, const anode *n, int32_t *ndim) {
  if (n->kind != AX_TUPLE && n->kind != AX_LIST)
    ps_fail(ps, n, "write the shape as a tuple: (1, \"n\", 784)", "a shape must be a tuple");
  const tsl_expr **d = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, n->n ? n->n : 1);
  for (uint32_t i = 0; i < n->n; i++)
    d[i] = dim_of(ps, n->items[i]);
  *ndim = (int32_t)n->n;
  return d;
}

static const char sinfo_usage[] =
    "struct info is R.Tensor(shape, dtype) (R.Tensor((1, \"n\"), \"float32\"), "
    "R.Tensor(ndim=2, dtype=\"float32\")), R.Tuple(...), R.Shape([...]) or R.Object";

const tsl_rx_sinfo *rx_sinfo(pstate *ps, const anode *n) {
  char path[128] = "";
  const anode *callee = n->kind == AX_CALL ? n->a : n;
  int legacy = callee->kind == AX_NAME && callee->slen == 6 && !memcmp(callee->s, "Tensor", 6) &&
               !rx_lookup(ps->rx, node_name(ps, callee));
  if (!legacy && !rx_path(ps, callee, path, sizeof path))
    ps_fail(ps, n, sinfo_usage, "expected struct info");
  if (legacy || !strcmp(path, "R.Tensor")) {
    tsl_rx_sinfo *s = rx_sinfo_new(ps->arena, TSL_RX_SINFO_TENSOR);
    if (n->kind != AX_CALL)
      return s;
    static const char *const kws[] = {"shape", "dtype", "ndim", NULL};
    ps_check_kwargs(ps, n, "R.Tensor", kws);
    ps_check_arity(ps, n, "R.Tensor", 0, 2, sinfo_usage);
    const anode *shape = ps_arg(ps, n, 0, "shape"), *dt = ps_arg(ps, n, 1, "dtype"),
                *nd = kw(n, "ndim");
    if (shape && shape->kind == AX_STR && !dt) { /* R.Tensor("float32") */
      dt = shape;
      shape = NULL;
    }
    if (shape)
      s->shape = dims_of(ps, shape, &s->ndim);
    if (nd) {
      int64_t v = ps_int_literal(ps, nd, "ndim");
      if (v < -1 || v > 64)
        ps_fail(ps, nd, "ndim is 0 to 64, or -1 for any rank", "invalid ndim %lld",
                (long long)v);
      if (shape && v != s->ndim)
        ps_fail(ps, nd, "ndim is the shape's length, or -1 for any rank", "ndim %lld does not "
                "fit the shape", (long long)v);
      s->ndim = (int32_t)v;
    }
    if (dt)
      s->dtype = ps_dtype_or_void(ps, dt);
    return s;
  }
  if (!strcmp(path, "R.Tuple")) {
    tsl_rx_sinfo *s = rx_sinfo_new(ps->arena, TSL_RX_SINFO_TUPLE);
    const tsl_rx_sinfo **f = TSL_NEW_ARRAY(ps->arena, const tsl_rx_sinfo *, n->n ? n->n : 1);
    for (uint32_t i = 0; n->kind == AX_CALL && i < n->n; i++)
      f[i] = rx_sinfo(ps, n->items[i]);
    s->n_fields = n->kind == AX_CALL ? n->n : 0;
    s->fields = f;
    return s;
  }
  if (!strcmp(path, "R.Shape")) {
    tsl_rx_sinfo *s = rx_sinfo_new(ps->arena, TSL_RX_SINFO_SHAPE);
    if (n->kind == AX_CALL && n->n == 1)
      s->shape = dims_of(ps, n->items[0], &s->ndim);
    else if (n->kind == AX_CALL && kw(n, "ndim")) {
      int64_t v = ps_int_literal(ps, kw(n, "ndim"), "ndim");
      if (v < -1 || v > 64)
        ps_fail(ps, kw(n, "ndim"), "ndim is 0 to 64, or -1 for any rank", "invalid ndim %lld",
                (long long)v);
      s->ndim = (int32_t)v;
    }
    return s;
  }
  if (!strcmp(path, "R.Object"))
    return rx_sinfo_new(ps->arena, TSL_RX_SINFO_OBJECT);
  ps_fail(ps, n, sinfo_usage, "unknown struct info '%s'", path);
}

/* ---- struct info checks ------------------------------------------------- */

/* A printed text (malloc'd, freed here) moved into the parse's scratch. */
static const char *sinfo_text(pstate *ps, const tsl_rx_sinfo *s) {
  char *t = tsl_rx_sinfo_print(s);
  size_t n = t ? strlen(t) : 0;
  char *r = ps_alloc(ps, n + 1);
  memcpy(r, t ? t : "", n + 1);
  free(t);
  return r;
}

/* `have` fits `want` (an annotation): same kind, rank, dtype and
 * dimensions where both are known; else a located error naming `what`. */
static void check_sinfo(pstate *ps, const anode *at, const tsl_rx_sinfo *want,
                        const tsl_rx_sinfo *have, const char *what) {
  if (want->kind == TSL_RX_SINFO_OBJECT || have->kind == TSL_RX_SINFO_OBJECT)
    return; /* nothing known on one side (an unbound weight) */
  int bad = want->kind != have->kind;
  if (!bad && want->kind == TSL_RX_SINFO_TUPLE) {
    bad = want->n_fields != have->n_fields;
    for (uint32_t i = 0; !bad && i < want->n_fields; i++)
      check_sinfo(ps, at, want->fields[i], have->fields[i], what);
    if (!bad)
      return;
  }
  if (!bad && want->ndim >= 0 && have->ndim >= 0)
    bad = want->ndim != have->ndim;
  if (!bad && !tsl_dtype_is_void(want->dtype) && !tsl_dtype_is_void(have->dtype))
    bad = !tsl_dtype_eq(want->dtype, have->dtype);
  for (int32_t d = 0; !bad && want->shape && have->shape && d < want->ndim; d++)
    bad = !rx_dim_equal(want->shape[d], have->shape[d]);
  if (bad)
    ps_fail(ps, at, "annotate what the value is, or change the value",
            "%s is %s, not %s as annotated", what, sinfo_text(ps, have), sinfo_text(ps, want));
}

/* An inference failure, located at the node of call `n` it concerns. */
static _Noreturn void infer_failed(pstate *ps, const anode *n, const rx_err *err) {
  const anode *at = n;
  if (err->at >= 1000) {
    const anode *t = n->n > 1 ? n->items[1] : NULL;
    uint32_t i = (uint32_t)(err->at - 1000);
    at = t && t->kind == AX_TUPLE && i < t->n ? t->items[i] : t ? t : n;
  } else if (err->at >= 0 && (uint32_t)err->at < n->n) {
    at = n->items[err->at];
  } else if (err->at == RX_AT_CALLEE && n->n > 0) {
    at = n->items[0];
  } else if (err->at == RX_AT_ARGS && n->n > 1) {
    at = n->items[1];
  }
  ps_fail(ps, at, err->hint[0] ? err->hint : NULL, "%s", err->msg);
}

/* ---- expressions --------------------------------------------------------- */

static tsl_rx_expr *new_expr(pstate *ps, uint32_t kind) {
  tsl_rx_expr *e = TSL_NEW(ps->arena, tsl_rx_expr);
  e->kind = kind;
  return e;
}

static const tsl_rx_expr *rx_expr(pstate *ps, const anode *n);

static const tsl_rx_expr *var_ref(pstate *ps, const anode *n) {
  prx *rx = ps->rx;
  tsl_str name = node_name(ps, n);
  rsym *s = rx_lookup(rx, name);
  if (s && s->kind == RS_VAR && s->dead) {
    ps_note(ps, "'%s' is a dataflow variable of the block that ends on line %u; name it in "
                "that block's R.output(...) to use it after the block", name, s->end_line);
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "'%s' is used outside its dataflow block",
                name);
  }
  if (s && s->kind == RS_VAR) {
    tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_VAR);
    e->var = s->var;
    e->sinfo = s->var->sinfo;
    return e;
  }
  if (s && s->kind == RS_SIZE)
    ps_fail(ps, n, "a symbolic size is part of a shape (R.Tensor((n, 4), ...)), not a value",
            "'%s' is a symbolic size", name);
  char list[512] = "";
  for (uint32_t i = 0; i < rx->nsyms; i++)
    if (rx->syms[i].kind == RS_VAR && !rx->syms[i].dead)
      ps_list_add(list, sizeof list, rx->syms[i].name);
  char note[600];
  snprintf(note, sizeof note, "%s%s", list[0] ? "values in scope here: " : "no value is defined "
           "here yet", list);
  ps_fail(ps, n, note, "unknown name '%s'", name);
}

/* A function of the module named by `n` (cls.f, or a string naming a
 * prim_func or a packed function): GLOBAL or EXTERN. */
static const tsl_rx_expr *callee(pstate *ps, const anode *n, int allow_extern) {
  const tsl_model *m = ps->rx->model;
  tsl_str name = NULL;
  if (n->kind == AX_STR)
    name = ps_intern(ps, n->s, n->slen);
  else if (n->kind == AX_ATTR && n->a->kind == AX_NAME) {
    rsym *s = rx_lookup(ps->rx, node_name(ps, n->a));
    if ((s && s->kind == RS_CLS) || (!s && node_name(ps, n->a) == m->tir->name))
      name = ps_intern(ps, n->s, n->slen);
  } else if (n->kind == AX_NAME && !rx_lookup(ps->rx, node_name(ps, n)))
    name = node_name(ps, n); /* the course's R.call_tir(linear0, ...) */
  if (!name)
    ps_fail(ps, n, "name the function as cls.f (after cls = <the module class>), or as a "
                   "string: \"f\" or a library function such as \"env.relu\"",
            "expected a function");
  /* a string names a packed function, resolved when the model runs: a
   * library function ("env.relu") or one of the module's prim_funcs */
  int global = n->kind != AX_STR && tsl_module_find(m->tir, name) != NULL;
  for (uint32_t i = 0; n->kind != AX_STR && i < ps->rx->n_defs && !global; i++)
    global = ps_intern(ps, ps->rx->defs[i]->name, ps->rx->defs[i]->namelen) == name;
  if (!global && (!allow_extern || n->kind != AX_STR)) {
    char list[512] = "";
    for (uint32_t i = 0; i < m->tir->n_funcs; i++)
      ps_list_add(list, sizeof list, m->tir->funcs[i]->name);
    ps_note(ps, "the module's functions: %s%s", list[0] ? list : "none",
            allow_extern ? "; a library function is named by a string (\"env.relu\")" : "");
    ps_error_at(ps, TSL_EINVALID, ps_node_off(ps, n), "unknown function '%s'", name);
  }
  tsl_rx_expr *e = new_expr(ps, global ? TSL_RX_EXPR_GLOBAL : TSL_RX_EXPR_EXTERN);
  e->name = name;
  e->sinfo = rx_sinfo_new(ps->arena, TSL_RX_SINFO_OBJECT);
  return e;
}

/* The argument tuple of a call_tir / call_dps_packed. */
static const tsl_rx_expr *arg_tuple(pstate *ps, const anode *n) {
  const tsl_rx_expr *t = rx_expr(ps, n);
  if (t->kind != TSL_RX_EXPR_TUPLE) {
    const tsl_rx_expr **one = TSL_NEW_ARRAY(ps->arena, const tsl_rx_expr *, 1);
    one[0] = t; /* a single tensor for a one-tuple, as TVM's parser allows */
    tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_TUPLE);
    e->n_args = 1;
    e->args = one;
    e->sinfo = rx_tuple_sinfo(ps->arena, 1, one);
    return e;
  }
  return t;
}

/* out_sinfo: one struct info or a list of them. */
static void out_sinfo(pstate *ps, const anode *n, tsl_rx_expr *call) {
  const anode *const *items = n->kind == AX_LIST ? (const anode *const *)n->items : &n;
  uint32_t k = n->kind == AX_LIST ? n->n : 1;
  const tsl_rx_sinfo **s = TSL_NEW_ARRAY(ps->arena, const tsl_rx_sinfo *, k ? k : 1);
  for (uint32_t i = 0; i < k; i++) {
    s[i] = rx_sinfo(ps, items[i]);
    if (s[i]->kind != TSL_RX_SINFO_TENSOR)
      ps_fail(ps, items[i], "the outputs of a destination-passing call are tensors",
              "out_sinfo must be R.Tensor(...)");
  }
  call->n_sinfo_args = k;
  call->sinfo_args = s;
}

/* R.call_tir(f, args, out_sinfo=...) and R.call_dps_packed(f, args,
 * out_sinfo); the course's older R.call_tir(f, args, (1, 128),
 * dtype="float32") too. */
static const tsl_rx_expr *dps_call(pstate *ps, const anode *n, tsl_rx_op op) {
  const char *fname = op == TSL_RX_OP_CALL_TIR ? "R.call_tir" : "R.call_dps_packed";
  static const char *const kws[] = {"out_sinfo", "dtype", "tir_vars", NULL};
  char usage[256];
  snprintf(usage, sizeof usage, "%s(cls.f, (x, w), out_sinfo=R.Tensor((1, 128), "
           "\"float32\"))", fname);
  ps_check_kwargs(ps, n, fname, kws);
  ps_check_arity(ps, n, fname, 2, 3, usage);
  if (kw(n, "tir_vars"))
    ps_fail(ps, kw(n, "tir_vars"), "pass symbolic sizes through the tensors' shapes",
            "tir_vars is not supported");
  tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_CALL);
  e->op = op;
  const tsl_rx_expr **args = TSL_NEW_ARRAY(ps->arena, const tsl_rx_expr *, 2);
  args[0] = callee(ps, n->items[0], 1);
  args[1] = arg_tuple(ps, n->items[1]);
  e->args = args;
  e->n_args = 2;
  const anode *out = ps_arg(ps, n, 2, "out_sinfo");
  if (!out)
    ps_fail(ps, n, usage, "%s needs the outputs' struct info (out_sinfo=)", fname);
  if (kw(n, "dtype")) { /* (1, 128), dtype="float32" */
    tsl_rx_sinfo *s = rx_sinfo_new(ps->arena, TSL_RX_SINFO_TENSOR);
    s->shape = dims_of(ps, out, &s->ndim);
    s->dtype = ps_dtype_arg(ps, kw(n, "dtype"));
    const tsl_rx_sinfo **one = TSL_NEW_ARRAY(ps->arena, const tsl_rx_sinfo *, 1);
    one[0] = s;
    e->n_sinfo_args = 1;
    e->sinfo_args = one;
  } else {
    out_sinfo(ps, out, e);
  }
  rx_err err = {0};
  e->sinfo = rx_infer_dps(ps->arena, ps_rx_tir(ps), op, e->args[0], e->args[1],
                          e->n_sinfo_args, e->sinfo_args, &err);
  if (!e->sinfo)
    infer_failed(ps, n, &err);
  return e;
}

/* An operator's attributes: positional after its operands, or by name. */
static tsl_attrs op_attrs(pstate *ps, const anode *call, uint32_t arity, const rx_attr_spec *spec,
                          uint32_t n_spec) {
  tsl_attr items[RX_MAX_ATTRS];
  uint32_t n = 0;
  for (uint32_t k = 0; k < n_spec && k < RX_MAX_ATTRS; k++) {
    const anode *v = ps_arg(ps, call, arity + k, spec[k].name);
    if (!v || v->kind == AX_NONE)
      continue;
    tsl_attr_value *val = &items[n].value;
    memset(val, 0, sizeof *val);
    items[n].key = tsl_intern(ps->ctx, spec[k].name);
    switch (spec[k].kind) {
    case RX_A_INT:
      val->kind = TSL_ATTR_INT;
      val->u.i = ps_int_literal(ps, v, spec[k].name);
      break;
    case RX_A_BOOL:
      if (v->kind != AX_TRUE && v->kind != AX_FALSE)
        ps_fail(ps, v, "True or False", "%s must be True or False", spec[k].name);
      val->kind = TSL_ATTR_BOOL;
      val->u.i = v->kind == AX_TRUE;
      break;
    case RX_A_FLOAT: {
      const anode *x = v->kind == AX_UNARY && v->op == OP_MINUS && v->a ? v->a : v;
      if (x->kind != AX_FLOAT && x->kind != AX_INT)
        ps_fail(ps, v, "a number such as 1e-05", "%s must be a number", spec[k].name);
      double f = x->kind == AX_FLOAT ? x->fval : (double)x->ival;
      val->kind = TSL_ATTR_FLOAT;
      val->u.f = x != v ? -f : f;
      break;
    }
    case RX_A_STR:
      if (v->kind != AX_STR)
        ps_fail(ps, v, "a string such as \"NCHW\"", "%s must be a string", spec[k].name);
      val->kind = TSL_ATTR_STR;
      val->u.s = tsl_intern_n(ps->ctx, v->s, v->slen);
      break;
    case RX_A_DTYPE: {
      char dt[32];
      val->kind = TSL_ATTR_STR;
      val->u.s = tsl_intern(ps->ctx, tsl_dtype_str(ps_dtype_arg(ps, v), dt));
      break;
    }
    case RX_A_INT_OR_INTS:
      if (v->kind != AX_LIST && v->kind != AX_TUPLE) {
        val->kind = TSL_ATTR_INT;
        val->u.i = ps_int_literal(ps, v, spec[k].name);
        break;
      }
      /* fall through */
    case RX_A_INTS: {
      int list = v->kind == AX_LIST || v->kind == AX_TUPLE;
      uint32_t m = list ? v->n : 1;
      tsl_attr_value *xs = TSL_NEW_ARRAY(ps->arena, tsl_attr_value, m ? m : 1);
      for (uint32_t i = 0; i < m; i++) {
        xs[i].kind = TSL_ATTR_INT;
        xs[i].u.i = ps_int_literal(ps, list ? v->items[i] : v, spec[k].name);
      }
      val->kind = TSL_ATTR_LIST;
      val->n = m;
      val->u.items = xs;
      break;
    }
    default: { /* RX_A_SHAPE: R.shape([...]) or a tuple / list of dimensions */
      const anode *d = v;
      char p[64];
      if (v->kind == AX_CALL && rx_path(ps, v->a, p, sizeof p) && !strcmp(p, "R.shape") &&
          v->n == 1)
        d = v->items[0];
      int list = d->kind == AX_LIST || d->kind == AX_TUPLE;
      int32_t nd = list ? (int32_t)d->n : 1;
      if (nd > 64)
        ps_fail(ps, d, "at most 64 dimensions", "too many dimensions");
      tsl_attr_value *xs = TSL_NEW_ARRAY(ps->arena, tsl_attr_value, nd ? nd : 1);
      for (int32_t i = 0; i < nd; i++) {
        const anode *it = list ? d->items[i] : d;
        xs[i].kind = TSL_ATTR_EXPR;
        /* -1: the dimension that keeps the element count */
        xs[i].u.expr = it->kind == AX_UNARY && ps_int_literal(ps, it, "a dimension") == -1
                           ? tsl_expr_int(ps->arena, TSL_INT64, -1)
                           : dim_of(ps, it);
      }
      val->kind = TSL_ATTR_LIST;
      val->n = (uint32_t)nd;
      val->u.items = xs;
      break;
    }
    }
    n++;
  }
  return tsl_attrs_make(ps->arena, n, items);
}

/* R.const(value[, dtype]): a scalar tensor. Without a dtype, as TVM: an
 * integer is int32, a number with a point float32, True / False bool. */
static const tsl_rx_expr *rx_const(pstate *ps, const anode *n) {
  static const char *const kws[] = {"value", "dtype", NULL};
  ps_check_kwargs(ps, n, "R.const", kws);
  const anode *v = ps_arg(ps, n, 0, "value"), *dt = ps_arg(ps, n, 1, "dtype");
  if (!v || n->n > 2)
    ps_fail(ps, n, "R.const(0.5, \"float32\")", "R.const takes a value and a dtype");
  const anode *x = v->kind == AX_UNARY && v->op == OP_MINUS && v->a ? v->a : v;
  int is_bool = x->kind == AX_TRUE || x->kind == AX_FALSE;
  if (x->kind != AX_INT && x->kind != AX_FLOAT && !is_bool)
    ps_fail(ps, v, "a number or True / False", "R.const takes a scalar literal (arrays are "
            "weights: metadata[\"relax.expr.Constant\"][i])");
  tsl_dtype t = dt ? ps_dtype_arg(ps, dt)
                   : is_bool ? TSL_BOOL : x->kind == AX_FLOAT ? TSL_FLOAT32 : TSL_INT32;
  double f = x->kind == AX_FLOAT ? x->fval : is_bool ? (x->kind == AX_TRUE) : (double)x->ival;
  int64_t i = x->kind == AX_INT ? x->ival : (int64_t)f;
  if (x != v) {
    f = -f;
    i = -i;
  }
  tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_CONST);
  const tsl_expr **d = TSL_NEW_ARRAY(ps->arena, const tsl_expr *, 1);
  d[0] = tsl_dtype_is_float(t) ? tsl_expr_float(ps->arena, t, f) : tsl_expr_int(ps->arena, t, i);
  e->dims = d;
  e->n_dims = 1;
  tsl_rx_sinfo *s = rx_sinfo_new(ps->arena, TSL_RX_SINFO_TENSOR);
  s->ndim = 0;
  s->dtype = t;
  s->shape = d; /* known: no dimensions */
  e->sinfo = s;
  return e;
}

static const tsl_rx_expr *rx_call(pstate *ps, const anode *n) {
  char path[128] = "";
  if (!rx_path(ps, n->a, path, sizeof path) || strncmp(path, "R.", 2))
    ps_fail(ps, n->a, "calls are R.call_tir, R.call_dps_packed or a Relax operator (R.add, "
                      "R.nn.relu, ...)", "expected a Relax call");
  if (!strcmp(path, "R.call_tir"))
    return dps_call(ps, n, TSL_RX_OP_CALL_TIR);
  if (!strcmp(path, "R.call_dps_packed"))
    return dps_call(ps, n, TSL_RX_OP_CALL_DPS_PACKED);
  if (!strcmp(path, "R.shape")) {
    ps_check_arity(ps, n, "R.shape", 1, 1, "R.shape([1, n])");
    tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_SHAPE);
    int32_t nd;
    e->dims = dims_of(ps, n->items[0], &nd);
    e->n_dims = (uint32_t)nd;
    tsl_rx_sinfo *s = rx_sinfo_new(ps->arena, TSL_RX_SINFO_SHAPE);
    s->ndim = nd;
    s->shape = e->dims;
    e->sinfo = s;
    return e;
  }
  if (!strcmp(path, "R.const"))
    return rx_const(ps, n);
  for (int op = TSL_RX_OP_ADD; op < TSL_RX_OP_COUNT; op++) {
    if (strcmp(path + 2, tsl_rx_op_name((tsl_rx_op)op)))
      continue;
    int arity = rx_op_arity((tsl_rx_op)op);
    const rx_attr_spec *spec = NULL;
    uint32_t n_spec = rx_op_attrs((tsl_rx_op)op, &spec);
    tsl_strbuf ub;
    tsl_strbuf_init(&ub);
    tsl_strbuf_printf(&ub, "%s(", path);
    for (int k = 0; k < arity; k++)
      tsl_strbuf_printf(&ub, arity == 1 ? "x" : "%sx%d", k ? ", " : "", k + 1);
    const char *kws[RX_MAX_ATTRS + 1] = {NULL};
    for (uint32_t k = 0; k < n_spec && k < RX_MAX_ATTRS; k++) {
      kws[k] = spec[k].name;
      tsl_strbuf_printf(&ub, ", %s=...", spec[k].name);
    }
    tsl_strbuf_append(&ub, ")");
    char usage[512];
    snprintf(usage, sizeof usage, "%s", ub.data);
    tsl_strbuf_free(&ub);
    ps_check_kwargs(ps, n, path, kws);
    ps_check_arity(ps, n, path, arity, arity + (int)n_spec, usage);
    tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_CALL);
    e->op = (uint32_t)op;
    const tsl_rx_expr **args = TSL_NEW_ARRAY(ps->arena, const tsl_rx_expr *, arity);
    for (int i = 0; i < arity; i++)
      args[i] = rx_expr(ps, n->items[i]);
    e->args = args;
    e->n_args = (uint32_t)arity;
    e->attrs = op_attrs(ps, n, (uint32_t)arity, spec, n_spec);
    rx_err err = {0};
    e->sinfo = rx_infer_op(ps->arena, (tsl_rx_op)op, e->n_args, e->args, e->attrs, &err);
    if (!e->sinfo)
      infer_failed(ps, n, &err);
    return e;
  }
  char list[512] = "R.call_tir, R.call_dps_packed, R.shape, R.const";
  for (int op = TSL_RX_OP_ADD; op < TSL_RX_OP_COUNT; op++) {
    char one[64];
    snprintf(one, sizeof one, "R.%s", tsl_rx_op_name((tsl_rx_op)op));
    ps_list_add(list, sizeof list, tsl_intern(ps->ctx, one));
  }
  ps_fail(ps, n->a, list, "unknown Relax operator '%s'", path);
}

/* metadata["relax.expr.Constant"][i] */
static int is_constant(pstate *ps, const anode *n) {
  const anode *in = n->kind == AX_SUBSCRIPT ? n->a : NULL;
  return in && in->kind == AX_SUBSCRIPT && in->a->kind == AX_NAME && in->a->slen == 8 &&
         !memcmp(in->a->s, "metadata", 8) && !rx_lookup(ps->rx, node_name(ps, in->a));
}

static const tsl_rx_expr *rx_expr(pstate *ps, const anode *n) {
  if (++ps->edepth > PS_MAX_DEPTH)
    ps_fail(ps, n, NULL, "expression nested too deeply");
  const tsl_rx_expr *r = NULL;
  switch (n->kind) {
  case AX_NAME:
    r = var_ref(ps, n);
    break;
  case AX_TUPLE: {
    const tsl_rx_expr **f = TSL_NEW_ARRAY(ps->arena, const tsl_rx_expr *, n->n ? n->n : 1);
    for (uint32_t i = 0; i < n->n; i++)
      f[i] = rx_expr(ps, n->items[i]);
    tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_TUPLE);
    e->n_args = n->n;
    e->args = f;
    e->sinfo = rx_tuple_sinfo(ps->arena, n->n, f);
    r = e;
    break;
  }
  case AX_SUBSCRIPT: {
    if (is_constant(ps, n)) {
      const anode *key = n->a->n == 1 ? n->a->items[0] : NULL;
      if (!key || key->kind != AX_STR || key->slen != 19 ||
          memcmp(key->s, "relax.expr.Constant", 19) || n->n != 1)
        ps_fail(ps, n, "weights are metadata[\"relax.expr.Constant\"][i]",
                "unsupported metadata reference");
      int64_t i = ps_int_literal(ps, n->items[0], "the constant's index");
      if (i < 0 || i > 1000000)
        ps_fail(ps, n->items[0], "an index from 0", "invalid constant index %lld", (long long)i);
      tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_CONSTANT);
      e->index = (uint32_t)i;
      e->sinfo = (uint32_t)i < ps->n_constant_sinfo && ps->constant_sinfo[i]
                     ? ps->constant_sinfo[i]
                     : rx_sinfo_new(ps->arena, TSL_RX_SINFO_OBJECT);
      if ((uint32_t)i + 1 > ps->rx->model->n_constants)
        ps->rx->model->n_constants = (uint32_t)i + 1;
      r = e;
      break;
    }
    const tsl_rx_expr *t = rx_expr(ps, n->a);
    if (n->n != 1)
      ps_fail(ps, n, "index a tuple with one integer: t[0]", "invalid tuple index");
    int64_t i = ps_int_literal(ps, n->items[0], "a tuple index");
    if (t->sinfo->kind != TSL_RX_SINFO_TUPLE || i < 0 || (uint64_t)i >= t->sinfo->n_fields)
      ps_fail(ps, n, t->sinfo->kind == TSL_RX_SINFO_TUPLE ? "an index below the tuple's length"
                                                          : "only tuples are indexed",
              "invalid tuple index %lld", (long long)i);
    tsl_rx_expr *e = new_expr(ps, TSL_RX_EXPR_TUPLE_GET);
    const tsl_rx_expr **one = TSL_NEW_ARRAY(ps->arena, const tsl_rx_expr *, 1);
    one[0] = t;
    e->args = one;
    e->n_args = 1;
    e->index = (uint32_t)i;
    e->sinfo = t->sinfo->fields[i];
    r = e;
    break;
  }
  case AX_CALL:
    r = rx_call(ps, n);
    break;
  default:
    ps_fail(ps, n, "a Relax value is a variable, a tuple, t[i], a weight "
                   "(metadata[\"relax.expr.Constant\"][i]) or a call",
            "unsupported Relax expression");
  }
  ps->edepth--;
  return r;
}

/* ---- statements ---------------------------------------------------------- */

static tsl_rx_var *new_var(pstate *ps, tsl_str name, const tsl_rx_sinfo *s, int dataflow) {
  tsl_rx_var *v = TSL_NEW(ps->arena, tsl_rx_var);
  v->name = name;
  v->id = ps->rx->next_id++;
  v->is_dataflow = (uint32_t)dataflow;
  v->sinfo = s;
  return v;
}

typedef struct pblocks {
  tsl_vec blocks;   /* tsl_rx_block */
  tsl_vec bindings; /* tsl_rx_binding of the open block */
  int open_dataflow;
} pblocks;

static void close_block(pstate *ps, pblocks *b) {
  if (!b->bindings.len)
    return;
  tsl_rx_block blk = {(uint32_t)b->open_dataflow, b->bindings.len,
                      tsl_arena_dup(ps->arena, b->bindings.data,
                                    b->bindings.len * sizeof(tsl_rx_binding))};
  TSL_VEC_PUSH(&b->blocks, tsl_rx_block, blk);
  b->bindings.len = 0;
}

/* `n = T.int64()` or `m, n = T.int64(), T.int64()`: symbolic sizes, or
 * `cls = Module`; 0 when `s` is neither. */
static int declaration(pstate *ps, const astmt *s) {
  const anode *t = s->target, *v = s->value;
  if (s->kind != AS_ASSIGN)
    return 0;
  if (t->kind == AX_NAME && v->kind == AX_NAME && ps->rx->model->tir->name &&
      node_name(ps, v) == ps->rx->model->tir->name) {
    rx_define(ps, RS_CLS, node_name(ps, t), t->tok);
    return 1;
  }
  uint32_t k = t->kind == AX_TUPLE ? t->n : 1;
  const anode *const *tg = t->kind == AX_TUPLE ? (const anode *const *)t->items : &t;
  const anode *const *vs = v->kind == AX_TUPLE ? (const anode *const *)v->items : &v;
  if ((v->kind == AX_TUPLE ? v->n : 1) != k)
    return 0;
  char path[64];
  for (uint32_t i = 0; i < k; i++)
    if (tg[i]->kind != AX_NAME || vs[i]->kind != AX_CALL || vs[i]->n || vs[i]->nkw ||
        !ps_dotted(ps, vs[i]->a, path, sizeof path) || strcmp(path, "T.int64"))
      return 0;
  for (uint32_t i = 0; i < k; i++) {
    tsl_str name = node_name(ps, tg[i]);
    rsym *old = rx_lookup(ps->rx, name);
    if (old && old->kind == RS_SIZE)
      continue; /* the signature's "n": the same size */
    rsym *d = rx_define(ps, RS_SIZE, name, tg[i]->tok);
    d->size = tsl_var_new(ps->arena, name, TSL_INT64);
    TSL_VEC_PUSH(&ps->rx->sizes, const tsl_var *, d->size);
  }
  return 1;
}

static void binding(pstate *ps, pblocks *b, const astmt *s) {
  if (!s->value)
    ps_fail(ps, s->target, "bind a value: y: R.Tensor((2,), \"float32\") = R.nn.relu(x)",
            "an annotation without a value");
  if (s->target->kind != AX_NAME)
    ps_fail(ps, s->target, "bind one name: lv0 = R.call_tir(...)",
            "unsupported binding target");
  const tsl_rx_expr *value = rx_expr(ps, s->value);
  const tsl_rx_sinfo *si = value->sinfo;
  if (s->kind == AS_ANNASSIGN) {
    const tsl_rx_sinfo *ann = rx_sinfo(ps, s->ann);
    check_sinfo(ps, s->value, ann, si, "the value bound");
    si = ann;
  }
  tsl_str name = node_name(ps, s->target);
  rsym *sym = rx_define(ps, RS_VAR, name, s->target->tok);
  sym->var = new_var(ps, name, si, b->open_dataflow);
  sym->block = b->open_dataflow ? ps->rx->block : -1;
  tsl_rx_binding bd = {sym->var, value};
  TSL_VEC_PUSH(&b->bindings, tsl_rx_binding, bd);
}

static int is_call_to(pstate *ps, const anode *n, const char *path) {
  char p[64];
  return n && n->kind == AX_CALL && rx_path(ps, n->a, p, sizeof p) && !strcmp(p, path);
}

static void dataflow(pstate *ps, pblocks *b, const astmt *w) {
  prx *rx = ps->rx;
  if (rx->block >= 0)
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, w->tok), "a dataflow block inside a dataflow "
                "block");
  close_block(ps, b);
  b->open_dataflow = 1;
  rx->block = rx->n_blocks_seen++;
  int outputs = 0;
  for (uint32_t i = 0; i < w->nbody; i++) {
    const astmt *s = w->body[i];
    if (s->kind == AS_PASS)
      continue;
    if (s->kind == AS_EXPR && is_call_to(ps, s->value, "R.output")) {
      const anode *c = s->value;
      if (c->nkw)
        ps_fail(ps, c, "R.output(a, b)", "R.output takes only the variables");
      for (uint32_t k = 0; k < c->n; k++) {
        rsym *o = c->items[k]->kind == AX_NAME ? rx_lookup(rx, node_name(ps, c->items[k]))
                                               : NULL;
        if (!o || o->kind != RS_VAR || o->block != rx->block)
          ps_fail(ps, c->items[k], "R.output names variables bound in its dataflow block",
                  "'%.*s' is not a variable of this dataflow block",
                  c->items[k]->kind == AX_NAME ? (int)c->items[k]->slen : 1,
                  c->items[k]->kind == AX_NAME ? c->items[k]->s : "?");
        o->var->is_dataflow = 0;
        o->block = -1;
      }
      outputs = 1;
      continue;
    }
    if (outputs) {
      ps_note(ps, "R.output(...) is the last statement of a dataflow block");
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "statement after R.output");
    }
    if (s->kind != AS_ASSIGN && s->kind != AS_ANNASSIGN)
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "a dataflow block holds bindings "
                  "(lv0 = R.call_tir(...)) and one R.output(...)");
    binding(ps, b, s);
  }
  uint32_t end = line_of_tok(ps, w->body[w->nbody - 1]->tok);
  for (uint32_t i = 0; i < rx->nsyms; i++)
    if (rx->syms[i].kind == RS_VAR && rx->syms[i].block == rx->block) {
      rx->syms[i].dead = 1;
      rx->syms[i].end_line = end;
    }
  close_block(ps, b);
  b->open_dataflow = 0;
  rx->block = -1;
}

static const tsl_rx_func *build(pstate *ps, const astmt *def) {
  prx *rx = ps->rx;
  rx->nsyms = 0;
  rx->block = -1;
  rx->n_blocks_seen = 0;
  tsl_vec_init(&rx->sizes, sizeof(const tsl_var *), ps->scratch);
  tsl_rx_func *f = TSL_NEW(ps->arena, tsl_rx_func);
  f->name = ps_intern(ps, def->name, def->namelen);
  /* the signature: struct infos bind the sizes they name */
  rx->in_signature = 1;
  const tsl_rx_var **params =
      TSL_NEW_ARRAY(ps->arena, const tsl_rx_var *, def->nparams ? def->nparams : 1);
  for (uint32_t i = 0; i < def->nparams; i++) {
    const aparam *p = &def->params[i];
    if (!p->ann)
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, p->tok), "parameter '%.*s' needs its struct "
                  "info: x: R.Tensor((1, 784), \"float32\")", (int)p->len, p->name);
    if (p->def)
      ps_fail(ps, p->def, NULL, "a Relax parameter has no default value");
    const tsl_rx_sinfo *s = rx_sinfo(ps, p->ann);
    tsl_str name = ps_intern(ps, p->name, p->len);
    rsym *sym = rx_define(ps, RS_VAR, name, p->tok);
    sym->var = new_var(ps, name, s, 0);
    params[i] = sym->var;
  }
  f->params = params;
  f->n_params = def->nparams;
  if (def->ann && def->ann->kind != AX_NONE)
    f->ret_sinfo = rx_sinfo(ps, def->ann);
  rx->in_signature = 0;
  /* the body */
  pblocks b;
  memset(&b, 0, sizeof b);
  tsl_vec_init(&b.blocks, sizeof(tsl_rx_block), ps->scratch);
  tsl_vec_init(&b.bindings, sizeof(tsl_rx_binding), ps->scratch);
  const astmt *ret = NULL;
  for (uint32_t i = 0; i < def->nbody; i++) {
    const astmt *s = def->body[i];
    if (ret)
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "statement after return");
    if (s->kind == AS_PASS || (s->kind == AS_EXPR && s->value->kind == AX_STR))
      continue;
    if (declaration(ps, s))
      continue;
    if (s->kind == AS_WITH && is_call_to(ps, s->value, "R.dataflow") && !s->target) {
      dataflow(ps, &b, s);
      continue;
    }
    if (s->kind == AS_ASSIGN || s->kind == AS_ANNASSIGN) {
      binding(ps, &b, s);
      continue;
    }
    if (s->kind == AS_RETURN && s->value) {
      ret = s;
      continue;
    }
    ps_note(ps, "a Relax function body holds symbolic sizes (n = T.int64()), bindings, "
                "`with R.dataflow():` blocks and one return");
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, s->tok), "unsupported statement in a Relax "
                "function");
  }
  if (!ret) {
    ps_note(ps, "end the function with return <value>");
    ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, def->nametok), "Relax function '%s' has no "
                "return", f->name);
  }
  close_block(ps, &b);
  f->ret = rx_expr(ps, ret->value);
  if (f->ret_sinfo)
    check_sinfo(ps, ret->value, f->ret_sinfo, f->ret->sinfo, "the returned value");
  else
    f->ret_sinfo = f->ret->sinfo;
  f->n_blocks = b.blocks.len;
  f->blocks = b.blocks.len ? tsl_arena_dup(ps->arena, b.blocks.data,
                                           b.blocks.len * sizeof(tsl_rx_block))
                           : NULL;
  f->n_size_vars = rx->sizes.len;
  f->size_vars = rx->sizes.len ? tsl_arena_dup(ps->arena, rx->sizes.data,
                                               rx->sizes.len * sizeof(const tsl_var *))
                               : NULL;
  return f;
}

int ps_is_rx_function(pstate *ps, const astmt *def) {
  for (uint32_t i = 0; i < def->ndecorators; i++) {
    const anode *d = def->decorators[i]->kind == AX_CALL ? def->decorators[i]->a
                                                          : def->decorators[i];
    char path[64];
    if (rx_path(ps, d, path, sizeof path) && !strcmp(path, "R.function"))
      return 1;
  }
  return 0;
}

const tsl_model *ps_build_model(pstate *ps, const tsl_module *tir) {
  prx *rx = ps->rx;
  tsl_model *m = rx->model;
  m->tir = tir;
  const tsl_rx_func **fs =
      TSL_NEW_ARRAY(ps->arena, const tsl_rx_func *, rx->n_defs ? rx->n_defs : 1);
  for (uint32_t i = 0; i < rx->n_defs; i++) {
    const astmt *d = rx->defs[i];
    tsl_str name = ps_intern(ps, d->name, d->namelen);
    if (tsl_module_find(tir, name))
      ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, d->nametok), "duplicate function '%s'", name);
    for (uint32_t j = 0; j < i; j++)
      if (fs[j]->name == name)
        ps_error_at(ps, TSL_EINVALID, ps_tok_off(ps, d->nametok), "duplicate function '%s'",
                    name);
    for (uint32_t k = 0; k < d->ndecorators; k++)
      if (d->decorators[k]->kind == AX_CALL) {
        static const char *const kws[] = {"private", "pure", NULL};
        ps_check_kwargs(ps, d->decorators[k], "R.function", kws);
      }
    fs[i] = build(ps, d);
  }
  m->n_rx_funcs = rx->n_defs;
  m->rx_funcs = fs;
  return m;
}

void ps_add_rx_def(pstate *ps, const astmt *def) {
  prx *rx = ps->rx;
  uint32_t cap = rx->n_defs;
  rx->defs = ps_grow(ps, (void *)rx->defs, &cap, rx->n_defs + 1, sizeof *rx->defs);
  rx->defs[rx->n_defs++] = def;
}

const tsl_module *ps_rx_tir(pstate *ps) { return ps->rx->model->tir; }

prx *ps_rx_new(pstate *ps, tsl_model *m) {
  prx *rx = ps_alloc(ps, sizeof *rx);
  memset(rx, 0, sizeof *rx);
  rx->model = m;
  rx->block = -1;
  return rx;
}
