/*
 * Models as TVMScript (tessel/relax.h), in TVM's printed form: the
 * prim_funcs, then each @R.function with its symbolic sizes as strings in
 * the signature ("n") and declared in the body (n = T.int64()), `cls =
 * <Module>` when it calls functions of the module, its blocks, `return`.
 */
#include "printer_internal.h"
#include "rx_ops.h"
#include "tessel/relax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dim(pr_t *p, const tsl_expr *d, int quoted) {
  int64_t v;
  if (tsl_expr_is_const_int(d, &v))
    pr_printf(p, "%lld", (long long)v);
  else if (d->kind == TSL_EXPR_VAR && quoted)
    pr_printf(p, "\"%s\"", d->u.var->name);
  else if (d->kind == TSL_EXPR_VAR)
    pr_puts(p, d->u.var->name);
  else
    pr_expr(p, d);
}

static void dims(pr_t *p, int32_t n, const tsl_expr *const *d, int quoted) {
  pr_puts(p, "(");
  for (int32_t i = 0; i < n; i++) {
    if (i)
      pr_puts(p, ", ");
    dim(p, d[i], quoted);
  }
  pr_puts(p, n == 1 ? ",)" : ")");
}

/* `quoted`: symbolic sizes as strings (a signature). */
static void sinfo(pr_t *p, const tsl_rx_sinfo *s, int quoted) {
  char dt[32];
  switch (s->kind) {
  case TSL_RX_SINFO_TENSOR: {
    pr_puts(p, "R.Tensor(");
    int any = 0;
    if (s->shape) {
      dims(p, s->ndim, s->shape, quoted);
      any = 1;
    } else if (s->ndim >= 0) {
      pr_printf(p, "ndim=%d", (int)s->ndim);
      any = 1;
    }
    if (!tsl_dtype_is_void(s->dtype))
      pr_printf(p, "%sdtype=\"%s\"", any ? ", " : "", pr_dtype(s->dtype, dt));
    pr_puts(p, ")");
    return;
  }
  case TSL_RX_SINFO_SHAPE:
    pr_puts(p, "R.Shape(");
    if (s->shape) {
      pr_puts(p, "[");
      for (int32_t i = 0; i < s->ndim; i++) {
        if (i)
          pr_puts(p, ", ");
        dim(p, s->shape[i], quoted);
      }
      pr_puts(p, "]");
    } else if (s->ndim >= 0) {
      pr_printf(p, "ndim=%d", (int)s->ndim);
    }
    pr_puts(p, ")");
    return;
  case TSL_RX_SINFO_TUPLE:
    pr_puts(p, "R.Tuple(");
    for (uint32_t i = 0; i < s->n_fields; i++) {
      if (i)
        pr_puts(p, ", ");
      sinfo(p, s->fields[i], quoted);
    }
    pr_puts(p, ")");
    return;
  default:
    pr_puts(p, "R.Object");
  }
}

static void expr(pr_t *p, const tsl_rx_expr *e);

static void args(pr_t *p, uint32_t n, const tsl_rx_expr *const *a) {
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      pr_puts(p, ", ");
    expr(p, a[i]);
  }
}

/* The shortest decimal that reads back as f. */
static void float_attr(pr_t *p, double f) {
  char buf[40];
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (strtod(buf, NULL) == f)
      break;
  }
  if (!strpbrk(buf, ".eEn"))
    strcat(buf, ".0");
  pr_puts(p, buf);
}

/* An operator's attributes as TVM prints them: R.reshape's shape as
 * R.shape([...]) in its place, the others by name. */
static void op_attrs(pr_t *p, const tsl_rx_expr *e) {
  const rx_attr_spec *spec = NULL;
  uint32_t n = rx_op_attrs((tsl_rx_op)e->op, &spec);
  for (uint32_t k = 0; k < n; k++) {
    const tsl_attr_value *v = tsl_attrs_get(e->attrs, spec[k].name);
    if (!v)
      continue;
    if (spec[k].kind == RX_A_SHAPE) {
      pr_puts(p, ", R.shape([");
      for (uint32_t i = 0; i < v->n; i++) {
        if (i)
          pr_puts(p, ", ");
        dim(p, v->u.items[i].u.expr, 0);
      }
      pr_puts(p, "])");
      continue;
    }
    pr_printf(p, ", %s=", spec[k].name);
    if (v->kind == TSL_ATTR_BOOL)
      pr_puts(p, v->u.i ? "True" : "False");
    else if (v->kind == TSL_ATTR_STR)
      pr_str_literal(p, v->u.s);
    else if (v->kind == TSL_ATTR_INT)
      pr_printf(p, "%lld", (long long)v->u.i);
    else if (v->kind == TSL_ATTR_FLOAT)
      float_attr(p, v->u.f);
    else {
      pr_puts(p, "[");
      for (uint32_t i = 0; i < v->n; i++)
        pr_printf(p, "%s%lld", i ? ", " : "", (long long)v->u.items[i].u.i);
      pr_puts(p, "]");
    }
  }
}

static void expr(pr_t *p, const tsl_rx_expr *e) {
  switch (e->kind) {
  case TSL_RX_EXPR_VAR:
    pr_puts(p, e->var->name);
    return;
  case TSL_RX_EXPR_CONSTANT:
    pr_printf(p, "metadata[\"relax.expr.Constant\"][%u]", e->index);
    return;
  case TSL_RX_EXPR_TUPLE:
    pr_puts(p, "(");
    args(p, e->n_args, e->args);
    pr_puts(p, e->n_args == 1 ? ",)" : ")");
    return;
  case TSL_RX_EXPR_TUPLE_GET:
    expr(p, e->args[0]);
    pr_printf(p, "[%u]", e->index);
    return;
  case TSL_RX_EXPR_GLOBAL:
    pr_printf(p, "cls.%s", e->name);
    return;
  case TSL_RX_EXPR_EXTERN:
    pr_str_literal(p, e->name);
    return;
  case TSL_RX_EXPR_SHAPE:
    pr_puts(p, "R.shape([");
    for (uint32_t i = 0; i < e->n_dims; i++) {
      if (i)
        pr_puts(p, ", ");
      dim(p, e->dims[i], 0);
    }
    pr_puts(p, "])");
    return;
  case TSL_RX_EXPR_CONST: {
    char dt[32];
    const tsl_expr *v = e->n_dims ? e->dims[0] : NULL;
    pr_puts(p, "R.const(");
    if (v && v->kind == TSL_EXPR_FLOAT_IMM)
      float_attr(p, v->u.float_value);
    else if (v && tsl_dtype_is_bool(v->dtype))
      pr_puts(p, v->u.int_value ? "True" : "False");
    else
      pr_printf(p, "%lld", v ? (long long)v->u.int_value : 0LL);
    pr_printf(p, ", \"%s\")", tsl_dtype_str(e->sinfo->dtype, dt));
    return;
  }
  case TSL_RX_EXPR_CALL:
    pr_printf(p, "R.%s(", tsl_rx_op_name((tsl_rx_op)e->op));
    args(p, e->n_args, e->args);
    if (e->op == TSL_RX_OP_CALL_TIR || e->op == TSL_RX_OP_CALL_DPS_PACKED) {
      pr_puts(p, ", out_sinfo=");
      if (e->n_sinfo_args != 1)
        pr_puts(p, "[");
      for (uint32_t i = 0; i < e->n_sinfo_args; i++) {
        if (i)
          pr_puts(p, ", ");
        sinfo(p, e->sinfo_args[i], 0);
      }
      if (e->n_sinfo_args != 1)
        pr_puts(p, "]");
    }
    op_attrs(p, e);
    pr_puts(p, ")");
    return;
  }
  pr_puts(p, "...");
}

static int calls_global(const tsl_rx_expr *e) {
  int r = e->kind == TSL_RX_EXPR_GLOBAL;
  for (uint32_t i = 0; !r && i < e->n_args; i++)
    r = calls_global(e->args[i]);
  return r;
}

/* `v: sinfo = value` where the annotation says more than the value (TVM
 * prints it then too), else `v = value`. */
static void binding(pr_t *p, const tsl_rx_binding *b) {
  char *want = tsl_rx_sinfo_print(b->var->sinfo), *have = tsl_rx_sinfo_print(b->value->sinfo);
  pr_line(p);
  pr_printf(p, "%s", b->var->name);
  if (want && have && strcmp(want, have)) {
    pr_puts(p, ": ");
    sinfo(p, b->var->sinfo, 0);
  }
  pr_puts(p, " = ");
  expr(p, b->value);
  pr_newline(p);
  free(want);
  free(have);
}

static void rx_func(pr_t *p, const tsl_module *tir, const tsl_rx_func *f) {
  pr_line(p);
  pr_puts(p, "@R.function");
  pr_newline(p);
  pr_line(p);
  pr_printf(p, "def %s(", f->name);
  for (uint32_t i = 0; i < f->n_params; i++) {
    pr_printf(p, "%s%s: ", i ? ", " : "", f->params[i]->name);
    sinfo(p, f->params[i]->sinfo, 1);
  }
  pr_puts(p, ") -> ");
  sinfo(p, f->ret_sinfo, 1);
  pr_puts(p, ":");
  pr_newline(p);
  p->indent += 4;
  int cls = calls_global(f->ret);
  for (uint32_t b = 0; b < f->n_blocks && !cls; b++)
    for (uint32_t i = 0; i < f->blocks[b].n_bindings && !cls; i++)
      cls = calls_global(f->blocks[b].bindings[i].value);
  if (cls) {
    pr_line(p);
    pr_printf(p, "cls = %s", tir->name ? tir->name : "Module");
    pr_newline(p);
  }
  for (uint32_t i = 0; i < f->n_size_vars; i++) {
    pr_line(p);
    pr_printf(p, "%s = T.int64()", f->size_vars[i]->name);
    pr_newline(p);
  }
  for (uint32_t b = 0; b < f->n_blocks; b++) {
    const tsl_rx_block *blk = &f->blocks[b];
    if (!blk->is_dataflow) {
      for (uint32_t i = 0; i < blk->n_bindings; i++)
        binding(p, &blk->bindings[i]);
      continue;
    }
    pr_line(p);
    pr_puts(p, "with R.dataflow():");
    pr_newline(p);
    p->indent += 4;
    int outs = 0;
    for (uint32_t i = 0; i < blk->n_bindings; i++) {
      binding(p, &blk->bindings[i]);
      outs += !blk->bindings[i].var->is_dataflow;
    }
    pr_line(p);
    pr_puts(p, "R.output(");
    for (uint32_t i = 0, k = 0; i < blk->n_bindings; i++)
      if (!blk->bindings[i].var->is_dataflow)
        pr_printf(p, "%s%s", k++ ? ", " : "", blk->bindings[i].var->name);
    pr_puts(p, ")");
    pr_newline(p);
    p->indent -= 4;
    (void)outs;
  }
  pr_line(p);
  pr_puts(p, "return ");
  expr(p, f->ret);
  pr_newline(p);
  p->indent -= 4;
}

char *tsl_model_print(const tsl_model *m) {
  pr_t p;
  pr_init(&p, 1);
  if (m && m->tir) {
    const tsl_module *tir = m->tir;
    pr_puts(&p, "# from tvm.script import ir as I\n"
                "# from tvm.script import tir as T\n"
                "# from tvm.script import relax as R\n\n"
                "@I.ir_module\n");
    pr_printf(&p, "class %s:\n", tir->name ? tir->name : "Module");
    p.indent = 4;
    for (uint32_t i = 0; i < tir->n_funcs; i++) {
      if (i)
        pr_newline(&p);
      pr_prim_func(&p, tir->funcs[i]);
    }
    for (uint32_t i = 0; i < m->n_rx_funcs; i++) {
      if (i || tir->n_funcs)
        pr_newline(&p);
      rx_func(&p, tir, m->rx_funcs[i]);
    }
    if (!tir->n_funcs && !m->n_rx_funcs)
      pr_puts(&p, "    pass\n");
  }
  char *s = tsl_strbuf_take(&p.out);
  pr_free(&p);
  return s;
}

char *tsl_rx_sinfo_print(const tsl_rx_sinfo *s) {
  pr_t p;
  pr_init(&p, 0);
  if (s)
    sinfo(&p, s, 0);
  char *r = tsl_strbuf_take(&p.out);
  pr_free(&p);
  return r;
}
