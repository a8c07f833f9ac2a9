/*
 * annotate / unannotate: add, replace or remove one key of a block's
 * T.block_attr dictionary or of a loop's annotations. Values are ints,
 * floats, strings, bools, sampled values (stored as their integer),
 * T. expressions, or lists and dicts (string keys) of those.
 */
#include "loops_internal.h"

#include <string.h>

static tsl_attr_value to_attr(sch_call *c, const tsl_sch_value *v) {
  tsl_attr_value r;
  memset(&r, 0, sizeof r);
  switch (v->kind) {
  case TSL_SV_INT:
  case TSL_SV_RV: {
    int64_t x = v->kind == TSL_SV_RV ? tsl_schedule_rv_value(c->sch, v->u.rv)
                                     : v->u.i;
    r.kind = TSL_ATTR_INT;
    r.dtype = x >= INT32_MIN && x <= INT32_MAX ? TSL_INT32 : TSL_INT64;
    r.u.i = x;
    break;
  }
  case TSL_SV_FLOAT:
    r.kind = TSL_ATTR_FLOAT;
    r.dtype = TSL_FLOAT32;
    r.u.f = v->u.f;
    break;
  case TSL_SV_BOOL:
    r.kind = TSL_ATTR_BOOL;
    r.dtype = TSL_BOOL;
    r.u.i = v->u.i != 0;
    break;
  case TSL_SV_STR:
    r.kind = TSL_ATTR_STR;
    r.u.s = v->u.s;
    break;
  case TSL_SV_LIST: {
    tsl_attr_value *items = TSL_NEW_ARRAY(c->arena, tsl_attr_value, v->n + 1);
    for (uint32_t i = 0; i < v->n; i++)
      items[i] = to_attr(c, &v->u.items[i]);
    r.kind = TSL_ATTR_LIST;
    r.n = v->n;
    r.u.items = items;
    break;
  }
  case TSL_SV_DICT: {
    tsl_attr *items = TSL_NEW_ARRAY(c->arena, tsl_attr, v->n / 2 + 1);
    for (uint32_t i = 0; i + 1 < v->n; i += 2) {
      items[i / 2].key = v->u.items[i].u.s;
      items[i / 2].value = to_attr(c, &v->u.items[i + 1]);
    }
    r.kind = TSL_ATTR_DICT;
    r.u.dict = tsl_attrs_make(c->arena, v->n / 2, items);
    break;
  }
  case TSL_SV_EXPR:
    r.kind = TSL_ATTR_EXPR;
    r.dtype = v->u.expr->dtype;
    r.u.expr = v->u.expr;
    break;
  default:
    r.kind = TSL_ATTR_STR;
    r.u.s = "";
    break;
  }
  return r;
}

/* `attrs` with `key` set to `val` (val NULL: removed). */
static tsl_attrs with_key(tsl_arena *a, tsl_attrs attrs, tsl_str key,
                          const tsl_attr_value *val) {
  tsl_attr *items = TSL_NEW_ARRAY(a, tsl_attr, attrs.n + 1);
  uint32_t n = 0;
  for (uint32_t i = 0; i < attrs.n; i++)
    if (strcmp(attrs.items[i].key, key) != 0)
      items[n++] = attrs.items[i];
  if (val) {
    items[n].key = key;
    items[n++].value = *val;
  }
  return tsl_attrs_make(a, n, items);
}

/* Install new annotations on the block or loop of args[0]. */
static int set_attrs(sch_call *c, tsl_str key, const tsl_attr_value *val) {
  sch_path p;
  tsl_sch_rv rv = c->args[0].u.rv;
  int is_loop = tsl_schedule_rv_kind(c->sch, rv) == TSL_RV_LOOP;
  int rc = is_loop ? sch_loop_path(c, rv, &p) : sch_block_path(c, rv, &p);
  if (rc)
    return rc;
  const tsl_stmt *s = sch_path_target(&p);
  tsl_attrs old = is_loop ? s->u.loop.annotations : s->u.realize.block->annotations;
  if (!val && !tsl_attrs_get(old, key)) {
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    for (uint32_t i = 0; i < old.n && i < 20; i++)
      tsl_strbuf_printf(&sb, "%s'%s'", i ? ", " : "", old.items[i].key);
    sch_fail(c, TSL_EINVALID, "%s '%s' has no annotation '%s'; present: %s",
             is_loop ? "loop" : "block",
             is_loop ? s->u.loop.loop_var->name : s->u.realize.block->name, key,
             old.n ? sb.data : "none");
    tsl_strbuf_free(&sb);
    return TSL_EINVALID;
  }
  tsl_attrs na = with_key(c->arena, old, key, val);
  const tsl_stmt *ns;
  if (is_loop) {
    ns = tsl_stmt_for(c->arena, s->u.loop.loop_var, s->u.loop.min,
                      s->u.loop.extent, (tsl_for_kind)s->u.loop.for_kind,
                      s->u.loop.thread_tag, na, s->u.loop.body);
  } else {
    tsl_block *b = tsl_block_clone(c->arena, s->u.realize.block);
    b->annotations = na;
    ns = sch_with_block(c->arena, s, b);
  }
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, ns));
  return TSL_OK;
}

int sch_apply_annotate(sch_call *c) {
  tsl_attr_value v = to_attr(c, &c->args[2]);
  return set_attrs(c, c->args[1].u.s, &v);
}

int sch_apply_unannotate(sch_call *c) {
  return set_attrs(c, c->args[1].u.s, NULL);
}
