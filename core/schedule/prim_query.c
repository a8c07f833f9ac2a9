/*
 * Query primitives: get_block, get_loops, get_child_blocks, get_producers,
 * get_consumers. They change nothing and only hand out handles.
 */
#include "sch_internal.h"

#include <string.h>

typedef struct name_list {
  tsl_strbuf *sb;
  int count;
} name_list;

/* Visitor block callback: the names of the first 20 blocks, and a count. */
static int list_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  name_list *l = ud;
  if (l->count < 20)
    tsl_strbuf_printf(l->sb, "%s %s", l->count ? "," : "", b->name);
  l->count++;
  return 0;
}

int sch_apply_get_block(sch_call *c) {
  tsl_schedule *sch = c->sch;
  tsl_str name = c->args[0].u.s;
  tsl_str fname = c->args[1].kind == TSL_SV_STR ? c->args[1].u.s : sch->func_name;
  if (!fname) {
    sch_fail(c, TSL_EINVALID,
             "does not know which function to work on: the module has %u "
             "functions and none is 'main'; give func_name= or "
             "call work_on first; functions:",
             sch->mod->n_funcs);
    for (uint32_t i = 0; i < sch->mod->n_funcs; i++)
      tsl_diag_append(c->diag, "%s %s", i ? "," : "", sch->mod->funcs[i]->name);
    return TSL_EINVALID;
  }
  const tsl_func *f = sch_func(sch, fname);
  if (!f && !strcmp(fname, "main") && sch->mod->n_funcs == 1) {
    /* TVM schedules a lone prim_func as the module {"main": func} */
    f = sch->mod->funcs[0];
    fname = f->name;
  }
  if (!f) {
    sch_fail(c, TSL_ENOTFOUND, "the module has no function '%s'; functions:", fname);
    for (uint32_t i = 0; i < sch->mod->n_funcs; i++)
      tsl_diag_append(c->diag, "%s %s", i ? "," : "", sch->mod->funcs[i]->name);
    return TSL_ENOTFOUND;
  }
  c->args[1] = tsl_sv_str(fname);
  sch_path p;
  uint32_t n = sch_find_block(f, name, &p);
  if (n == 1) {
    sch_out_block(c, fname, name);
    return TSL_OK;
  }
  if (n > 1)
    return sch_fail(c, TSL_EINVALID,
                    "%u blocks in '%s' are named '%s'; block names must be unique",
                    n, fname, name);
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  name_list l = {&sb, 0};
  tsl_stmt_visitor v = {.block = list_block, .user_data = &l};
  tsl_stmt_visit(f->body, &v);
  sch_fail(c, TSL_ENOTFOUND, "no block named '%s' in '%s'; blocks:%s%s", name,
           fname, sb.data ? sb.data : " none", l.count > 20 ? ", ..." : "");
  tsl_strbuf_free(&sb);
  return TSL_ENOTFOUND;
}

int sch_apply_get_loops(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  uint32_t first = p.depth - 1;
  while (first > 0 && p.stmts[first - 1]->kind != TSL_STMT_BLOCK_REALIZE)
    first--;
  for (uint32_t k = first; k + 1 < p.depth; k++)
    if (p.stmts[k]->kind == TSL_STMT_FOR)
      sch_out_loop(c, p.func->name, p.stmts[k]->u.loop.loop_var);
  return TSL_OK;
}

int sch_apply_get_child_blocks(sch_call *c) {
  sch_path p;
  tsl_sch_rv rv = c->args[0].u.rv;
  int rc = tsl_schedule_rv_kind(c->sch, rv) == TSL_RV_LOOP
               ? sch_loop_path(c, rv, &p)
               : sch_block_path(c, rv, &p);
  if (rc)
    return rc;
  sch_path *kids;
  uint32_t n = sch_child_blocks(c, &p, &kids);
  for (uint32_t i = 0; i < n; i++)
    sch_out_block(c, p.func->name, sch_path_block(&kids[i])->name);
  return TSL_OK;
}

/* Blocks of the same scope that write what `b` reads (producers) or read
 * what it writes (consumers), in program order. */
static int deps(sch_call *c, int producers) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  uint32_t n = sch_block_deps(c, &p, producers, NULL, 0);
  sch_path *found = TSL_NEW_ARRAY(c->arena, sch_path, n ? n : 1);
  sch_block_deps(c, &p, producers, found, n);
  for (uint32_t i = 0; i < n; i++)
    sch_out_block(c, p.func->name, sch_path_block(&found[i])->name);
  return TSL_OK;
}

int sch_apply_get_producers(sch_call *c) { return deps(c, 1); }
int sch_apply_get_consumers(sch_call *c) { return deps(c, 0); }

/* Every block inside `s` (at any depth, inits included) that writes a
 * buffer its scope block (the nearest block around it, `scope`) does not
 * allocate: TVM's output blocks. */
typedef struct out_scan {
  tsl_stmt_visitor v;
  sch_call *c;
  tsl_str func;
  const tsl_block *scope;
} out_scan;

static int output_block(const tsl_stmt *s, void *ud) {
  out_scan *o = ud;
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  const tsl_block *b = s->u.realize.block, *scope = o->scope;
  int out = 0;
  for (uint32_t w = 0; w < b->n_writes && !out; w++) {
    out = 1;
    for (uint32_t k = 0; k < scope->n_alloc_buffers && out; k++)
      out = scope->alloc_buffers[k] != b->writes[w].buffer;
  }
  if (out)
    sch_out_block(o->c, o->func, b->name);
  o->scope = b;
  if (b->init)
    tsl_stmt_visit(b->init, &o->v);
  tsl_stmt_visit(b->body, &o->v);
  o->scope = scope;
  return TSL_VISIT_SKIP;
}

int sch_apply_get_output_blocks(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_block *b = sch_path_block(&p);
  out_scan o = {{.stmt = output_block}, c, p.func->name, b};
  o.v.user_data = &o;
  tsl_stmt_visit(b->body, &o.v);
  return TSL_OK;
}
