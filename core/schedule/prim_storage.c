/*
 * set_scope and storage_align (TVM tir.Schedule semantics).
 *
 * set_scope moves a buffer allocated in a block (T.alloc_buffer) to another
 * storage scope: the buffer is rebuilt as "<name>_<scope>" and every use in
 * the allocating block is redirected (loads, stores, regions, match
 * buffers; match buffers viewing it move to the scope too, as in TVM).
 * storage_align records [buffer_index, axis, factor, offset] in the
 * writing block's "buffer_dim_align" annotation, replacing an entry for
 * the same buffer and axis.
 */
#include "storage_util.h"

#include <string.h>

/* The write buffer of the call's block with checks shared by both
 * primitives: index in range, the buffer allocated in a block. */
static int written_alloc_buffer(sch_call *c, sch_path *p,
                                const tsl_buffer **buf, int *site,
                                const char *what) {
  int rc = sch_block_path(c, c->args[0].u.rv, p);
  if (rc)
    return rc;
  const tsl_block *b = sch_path_block(p);
  rc = sto_check_index(c, b, c->args[1].u.i, 1, "buffer_index");
  if (rc)
    return rc;
  *buf = b->writes[c->args[1].u.i].buffer;
  *site = sto_alloc_site(p, *buf);
  if (*site >= 0)
    return TSL_OK;
  if (sto_is_param(p->func, *buf))
    return sch_fail(c, TSL_EINVALID,
                    "buffer '%s' written by block '%s' is a parameter of '%s'; "
                    "only buffers allocated in a block (T.alloc_buffer) can "
                    "%s",
                    (*buf)->name, b->name, p->func->name, what);
  return sch_fail(c, TSL_EINVALID,
                  "buffer '%s' written by block '%s' is not allocated by "
                  "the block or any block around it",
                  (*buf)->name, b->name);
}

int sch_apply_set_scope(sch_call *c) {
  sch_path p;
  const tsl_buffer *buf;
  int site;
  const char *scope = c->args[2].u.s;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  /* a buffer name names a write buffer (TVM's required_buffer_type) */
  rc = sch_buffer_index_arg(c, sch_path_block(&p), 1, 1);
  if (rc)
    return rc;
  rc = sto_check_index(c, sch_path_block(&p), c->args[1].u.i, 1,
                       "buffer_index");
  if (rc)
    return rc;
  buf = sch_path_block(&p)->writes[c->args[1].u.i].buffer;
  if (strcmp(buf->scope, scope) == 0)
    return TSL_OK; /* nothing to change, as in TVM */
  if (!sto_scope_valid(scope))
    return sch_fail(c, TSL_EINVALID,
                    "storage scope \"%s\" is invalid; valid scopes: %s", scope,
                    sto_scope_list());
  rc = written_alloc_buffer(c, &p, &buf, &site, "change scope");
  if (rc)
    return rc;
  const tsl_buffer *nbuf = sto_buffer_with_scope(c, buf, scope, NULL);
  sto_rw rw;
  sto_rw_init(&rw, c, buf, nbuf);
  rw.rescope_matches = scope;
  const tsl_stmt *real = p.stmts[site];
  const tsl_block *nb = sto_rw_block(&rw, real->u.realize.block);
  const tsl_stmt *nr = sch_with_block(c->arena, real, nb);
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, (uint32_t)site, nr));
  return TSL_OK;
}

/* ---- storage_align ---------------------------------------------------------- */

static tsl_attr_value int_attr(int64_t v) {
  tsl_attr_value a;
  memset(&a, 0, sizeof a);
  a.kind = TSL_ATTR_INT;
  a.dtype = TSL_INT32;
  a.u.i = v;
  return a;
}

/* 1 when `v` is a list of 4-int lists (TVM's check of the annotation). */
static int valid_align_ann(const tsl_attr_value *v) {
  if (v->kind != TSL_ATTR_LIST)
    return 0;
  for (uint32_t i = 0; i < v->n; i++) {
    const tsl_attr_value *t = &v->u.items[i];
    if (t->kind != TSL_ATTR_LIST || t->n != 4)
      return 0;
    for (uint32_t k = 0; k < 4; k++)
      if (t->u.items[k].kind != TSL_ATTR_INT)
        return 0;
  }
  return 1;
}

int sch_apply_storage_align(sch_call *c) {
  sch_path p;
  const tsl_buffer *buf;
  int site;
  int64_t index = c->args[1].u.i, axis = c->args[2].u.i;
  int64_t factor = c->args[3].u.i, offset = c->args[4].u.i;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  const tsl_block *b = sch_path_block(&p);
  rc = sto_check_index(c, b, index, 1, "buffer_index");
  if (rc)
    return rc;
  buf = b->writes[index].buffer;
  if (factor <= 0)
    return sch_fail(c, TSL_EINVALID,
                    "factor %lld must be a positive integer", (long long)factor);
  int64_t nd = buf->ndim;
  if (axis < -nd || axis >= nd)
    return sch_fail(c, TSL_EINVALID,
                    "axis %lld is out of range for buffer '%s' with %lld "
                    "dimension%s; valid axes are %lld..%lld",
                    (long long)axis, buf->name, (long long)nd,
                    nd == 1 ? "" : "s", (long long)-nd, (long long)nd - 1);
  if (axis < 0)
    axis += nd;
  if (offset < 0 || offset >= factor)
    return sch_fail(c, TSL_EINVALID,
                    "offset %lld must satisfy 0 <= offset < factor (%lld)",
                    (long long)offset, (long long)factor);
  rc = written_alloc_buffer(c, &p, &buf, &site, "be aligned");
  if (rc)
    return rc;

  const tsl_attr_value *old = tsl_attrs_get(b->annotations, "buffer_dim_align");
  if (old && !valid_align_ann(old))
    return sch_fail(c, TSL_EINVALID,
                    "block '%s' has a \"buffer_dim_align\" annotation that is "
                    "not a list of [buffer_index, axis, factor, offset] lists",
                    b->name);
  uint32_t n_old = old ? old->n : 0;
  tsl_attr_value *tuples = TSL_NEW_ARRAY(c->arena, tsl_attr_value, n_old + 1);
  uint32_t n = 0;
  int replaced = 0;
  tsl_attr_value *tup = TSL_NEW_ARRAY(c->arena, tsl_attr_value, 4);
  tup[0] = int_attr(index);
  tup[1] = int_attr(axis);
  tup[2] = int_attr(factor);
  tup[3] = int_attr(offset);
  tsl_attr_value nt;
  memset(&nt, 0, sizeof nt);
  nt.kind = TSL_ATTR_LIST;
  nt.n = 4;
  nt.u.items = tup;
  for (uint32_t i = 0; i < n_old; i++) {
    const tsl_attr_value *t = &old->u.items[i];
    if (!replaced && t->u.items[0].u.i == index && t->u.items[1].u.i == axis) {
      tuples[n++] = nt;
      replaced = 1;
    } else {
      tuples[n++] = *t;
    }
  }
  if (!replaced)
    tuples[n++] = nt;

  tsl_attr *items = TSL_NEW_ARRAY(c->arena, tsl_attr, b->annotations.n + 1);
  uint32_t m = 0;
  for (uint32_t i = 0; i < b->annotations.n; i++)
    if (strcmp(b->annotations.items[i].key, "buffer_dim_align") != 0)
      items[m++] = b->annotations.items[i];
  items[m].key = tsl_intern(c->sch->ctx, "buffer_dim_align");
  memset(&items[m].value, 0, sizeof items[m].value);
  items[m].value.kind = TSL_ATTR_LIST;
  items[m].value.n = n;
  items[m].value.u.items = tuples;
  m++;
  tsl_block *nb = tsl_block_clone(c->arena, b);
  nb->annotations = tsl_attrs_make(c->arena, m, items);
  const tsl_stmt *nr = sch_with_block(c->arena, sch_path_target(&p), nb);
  sch_commit(c, p.func, sch_path_rebuild(c->arena, &p, p.depth - 1, nr));
  return TSL_OK;
}
