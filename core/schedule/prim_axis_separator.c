/*
 * set_axis_separator (TVM's layout_transformation.cc SetAxisSeparator):
 * the buffer a block accesses gets new axis separators and replaces the old
 * one everywhere in the function (parameters included). A T.match_buffer
 * view of it gets the same separators when it has the buffer's rank, else
 * as many zeros (TVM's rule for views of another rank).
 */
#include "layout_internal.h"

/* Views of a replaced buffer are replaced too, before the block's contents
 * are rewritten. */
static const tsl_stmt *sep_stmt(tsl_mutator *m, const tsl_stmt *s) {
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    const tsl_block *b = s->u.realize.block;
    for (uint32_t i = 0; i < b->n_match_buffers; i++) {
      const tsl_match_buffer *mb = &b->match_buffers[i];
      const tsl_buffer *src = tsl_mutate_buffer(m, mb->source.buffer);
      if (src == mb->source.buffer || tsl_map_get(m->buffers, mb->buffer))
        continue;
      const tsl_buffer *view = mb->buffer;
      uint32_t n = src->n_axis_separators;
      const int32_t *seps = src->axis_separators;
      if (view->ndim != src->ndim)
        seps = TSL_NEW_ARRAY(m->arena, int32_t, n + 1); /* zeros */
      tsl_map_put(m->buffers, view,
                  (void *)tsl_buffer_with_axis_separators(m->arena, view, n, seps));
    }
  }
  return tsl_mutate_stmt_children(m, s);
}

int sch_apply_set_axis_separator(sch_call *c) {
  sch_path p;
  int rc = sch_block_path(c, c->args[0].u.rv, &p);
  if (rc)
    return rc;
  sch_buffer_ref ref;
  if ((rc = sch_buffer_arg(c, sch_path_block(&p), 1, -1, &ref)))
    return rc;
  const tsl_buffer *buf = ref.buffer;
  int site;
  if ((rc = lay_buffer_site(c, &p, buf, &site)))
    return rc;
  const tsl_sch_value *v = &c->args[2];
  int32_t *seps = TSL_NEW_ARRAY(c->arena, int32_t, v->n + 1);
  for (uint32_t i = 0; i < v->n; i++) {
    int64_t s = v->u.items[i].u.i;
    if (s < (i ? seps[i - 1] : 0) || s > (int64_t)buf->ndim)
      return sch_fail(c, TSL_EINVALID,
                      "axis_separators: %lld is %s; separators are ascending positions "
                      "in [0, %u] for buffer '%s' of %u dimensions",
                      (long long)s, s > (int64_t)buf->ndim || s < 0 ? "out of range"
                                                                 : "out of order",
                      buf->ndim, buf->name, buf->ndim);
    seps[i] = (int32_t)s;
  }
  tsl_map buffers;
  tsl_map_init(&buffers, c->arena);
  tsl_map_put(&buffers, buf,
              (void *)tsl_buffer_with_axis_separators(c->arena, buf, v->n, seps));
  tsl_mutator m = tsl_mutator_make(c->arena);
  m.buffers = &buffers;
  m.stmt = sep_stmt;
  const tsl_func *nf = tsl_mutate_func(&m, p.func);
  sch_commit(c, nf, nf->body);
  return TSL_OK;
}
