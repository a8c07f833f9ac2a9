/*
 * Buffer arguments of primitives (transform_layout, reindex, ...): a buffer
 * named by string or by ("read" | "write", index), resolved against a block
 * as TVM's Schedule._normalize_buffer_arg does, and recorded as the tuple.
 */
#include "sch_internal.h"

#include <string.h>

int sch_buffer_arg(sch_call *c, const tsl_block *b, uint32_t arg, int required,
                   sch_buffer_ref *out) {
  tsl_sch_value *v = &c->args[arg];
  const char *pname = c->kind->params[arg].name;
  int is_write = -1;
  int64_t index = -1;
  if (v->kind == TSL_SV_STR) {
    for (uint32_t i = 0; i < b->n_reads; i++)
      if (!strcmp(b->reads[i].buffer->name, v->u.s)) {
        is_write = 0;
        index = i;
        break;
      }
    /* a buffer both read and written is the written one (TVM keys its
     * candidates by buffer, the write coming last) */
    for (uint32_t i = 0; i < b->n_writes; i++)
      if (!strcmp(b->writes[i].buffer->name, v->u.s)) {
        if (is_write == 0 && b->writes[i].buffer != b->reads[index].buffer)
          return sch_fail(c, TSL_EINVALID,
                          "%s: block '%s' has two different buffers named '%s'; "
                          "name one as (\"read\", %lld) or (\"write\", %u)",
                          pname, b->name, v->u.s, (long long)index, i);
        is_write = 1;
        index = i;
        break;
      }
    if (is_write < 0) {
      sch_fail(c, TSL_EINVALID, "%s: block '%s' does not access a buffer named '%s'; it "
               "reads", pname, b->name, v->u.s);
      for (uint32_t i = 0; i < b->n_reads; i++)
        tsl_diag_append(c->diag, "%s '%s'", i ? "," : "", b->reads[i].buffer->name);
      if (!b->n_reads)
        tsl_diag_append(c->diag, " nothing");
      tsl_diag_append(c->diag, " and writes");
      for (uint32_t i = 0; i < b->n_writes; i++)
        tsl_diag_append(c->diag, "%s '%s'", i ? "," : "", b->writes[i].buffer->name);
      if (!b->n_writes)
        tsl_diag_append(c->diag, " nothing");
      return TSL_EINVALID;
    }
  } else {
    const char *type = v->u.items[0].u.s;
    if (strcmp(type, "read") && strcmp(type, "write"))
      return sch_fail(c, TSL_EINVALID,
                      "%s: the buffer type must be \"read\" or \"write\", not \"%s\"",
                      pname, type);
    is_write = !strcmp(type, "write");
    index = v->u.items[1].u.i;
    uint32_t n = is_write ? b->n_writes : b->n_reads;
    if (index < 0 || index >= n)
      return sch_fail(c, TSL_EINVALID,
                      "%s: block '%s' has %u %s buffer%s; the index must be in [0, %u), "
                      "not %lld",
                      pname, b->name, n, is_write ? "write" : "read", n == 1 ? "" : "s",
                      n, (long long)index);
  }
  if (required >= 0 && is_write != required)
    return sch_fail(c, TSL_EINVALID, "%s: needs a %s buffer of block '%s', not its %s "
                    "buffer %lld", pname, required ? "write" : "read", b->name,
                    is_write ? "write" : "read", (long long)index);
  tsl_sch_value *items = TSL_NEW_ARRAY(c->arena, tsl_sch_value, 2);
  items[0] = tsl_sv_str(tsl_intern(c->sch->ctx, is_write ? "write" : "read"));
  items[1] = tsl_sv_int(index);
  *v = tsl_sv_tuple(2, items);
  out->is_write = is_write;
  out->index = (uint32_t)index;
  out->region = is_write ? &b->writes[index] : &b->reads[index];
  out->buffer = out->region->buffer;
  return TSL_OK;
}

int sch_buffer_index_arg(sch_call *c, const tsl_block *b, uint32_t arg,
                         int is_write) {
  if (c->args[arg].kind != TSL_SV_STR)
    return TSL_OK;
  sch_buffer_ref ref;
  int rc = sch_buffer_arg(c, b, arg, is_write, &ref);
  if (rc)
    return rc;
  c->args[arg] = tsl_sv_int(ref.index);
  return TSL_OK;
}
