/*
 * Locating blocks and loops in a function (as paths from the root), and
 * rebuilding the immutable tree after one statement on a path changed.
 */
#include "sch_internal.h"
#include "arena_internal.h"

#include <string.h>

/* ---- children ------------------------------------------------------------ */

static uint32_t n_children(const tsl_stmt *s) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
  case TSL_STMT_LET: return 1;
  case TSL_STMT_BLOCK_REALIZE: return 2;
  case TSL_STMT_IF: return 2;
  case TSL_STMT_SEQ: return s->u.seq.n;
  default: return 0;
  }
}

static const tsl_stmt *child(const tsl_stmt *s, uint32_t i) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR: return s->u.loop.body;
  case TSL_STMT_LET: return s->u.let.body;
  case TSL_STMT_BLOCK_REALIZE:
    return i == 0 ? s->u.realize.block->body : s->u.realize.block->init;
  case TSL_STMT_IF: return i == 0 ? s->u.branch.then_case : s->u.branch.else_case;
  case TSL_STMT_SEQ: return s->u.seq.stmts[i];
  default: return NULL;
  }
}

typedef int (*match_fn)(const tsl_stmt *s, const void *key);

static int search(const tsl_stmt *s, match_fn match, const void *key,
                  sch_path *p, uint32_t *count) {
  if (p->depth >= SCH_MAX_DEPTH)
    return 0;
  uint32_t d = p->depth;
  p->stmts[d] = s;
  p->depth = d + 1;
  if (match(s, key)) {
    if (++*count == 1)
      return 1;
  }
  uint32_t n = n_children(s);
  for (uint32_t i = 0; i < n; i++) {
    const tsl_stmt *ch = child(s, i);
    if (!ch)
      continue;
    p->index[d + 1] = i;
    if (search(ch, match, key, p, count))
      return 1;
  }
  p->depth = d;
  return 0;
}

static int match_block(const tsl_stmt *s, const void *key) {
  return s->kind == TSL_STMT_BLOCK_REALIZE &&
         s->u.realize.block->name == (tsl_str)key;
}
static int match_loop(const tsl_stmt *s, const void *key) {
  return s->kind == TSL_STMT_FOR && s->u.loop.loop_var == key;
}

/* Counting every match needs a full walk; a separate counter avoids
 * disturbing the first path. */
static void count_blocks(const tsl_stmt *s, tsl_str name, uint32_t *count) {
  if (match_block(s, name))
    ++*count;
  uint32_t n = n_children(s);
  for (uint32_t i = 0; i < n; i++)
    if (child(s, i))
      count_blocks(child(s, i), name, count);
}

uint32_t sch_find_block(const tsl_func *f, tsl_str name, sch_path *out) {
  uint32_t count = 0;
  out->func = f;
  out->depth = 0;
  out->index[0] = 0;
  if (!search(f->body, match_block, name, out, &count))
    return 0;
  count = 0;
  count_blocks(f->body, name, &count);
  return count;
}

int sch_find_loop(const tsl_func *f, const tsl_var *v, sch_path *out) {
  uint32_t count = 0;
  out->func = f;
  out->depth = 0;
  out->index[0] = 0;
  return search(f->body, match_loop, v, out, &count);
}

/* ---- handles -------------------------------------------------------------- */

int sch_block_path(sch_call *c, tsl_sch_rv rv, sch_path *out) {
  tsl_schedule *sch = c->sch;
  if (rv >= sch->n_rvs || sch->rvs[rv].kind != TSL_RV_BLOCK)
    return sch_fail(c, TSL_EINVALID, "expected a block, got %s",
                    sch_rv_describe(sch, rv));
  const sch_rv *r = &sch->rvs[rv];
  const tsl_func *f = sch_func(sch, r->func);
  if (!f || !sch_find_block(f, r->u.block, out))
    return sch_fail(c, TSL_ENOTFOUND,
                    "block '%s' no longer exists in '%s' (a previous primitive "
                    "removed it)",
                    r->u.block, r->func);
  return TSL_OK;
}

int sch_loop_path(sch_call *c, tsl_sch_rv rv, sch_path *out) {
  tsl_schedule *sch = c->sch;
  if (rv >= sch->n_rvs || sch->rvs[rv].kind != TSL_RV_LOOP)
    return sch_fail(c, TSL_EINVALID, "expected a loop, got %s",
                    sch_rv_describe(sch, rv));
  const sch_rv *r = &sch->rvs[rv];
  const tsl_func *f = sch_func(sch, r->func);
  if (!f || !sch_find_loop(f, r->u.loop, out))
    return sch_fail(c, TSL_ENOTFOUND,
                    "loop '%s' no longer exists in '%s' (a previous primitive "
                    "replaced or removed it)",
                    r->u.loop->name, r->func);
  return TSL_OK;
}

const tsl_stmt *sch_path_target(const sch_path *p) {
  return p->stmts[p->depth - 1];
}
const tsl_block *sch_path_block(const sch_path *p) {
  const tsl_stmt *s = sch_path_target(p);
  return s->kind == TSL_STMT_BLOCK_REALIZE ? s->u.realize.block : NULL;
}

uint32_t sch_path_scope_level(const sch_path *p, uint32_t level) {
  for (uint32_t k = level; k-- > 0;)
    if (p->stmts[k]->kind == TSL_STMT_BLOCK_REALIZE)
      return k;
  return 0;
}

/* ---- rebuilding ------------------------------------------------------------ */

const tsl_stmt *sch_with_block(tsl_arena *a, const tsl_stmt *realize,
                               const tsl_block *block) {
  return tsl_stmt_block_realize(a, realize->u.realize.n_iter_values,
                                realize->u.realize.iter_values,
                                realize->u.realize.predicate, block);
}

const tsl_stmt *sch_with_child(tsl_arena *a, const tsl_stmt *s, uint32_t i,
                               const tsl_stmt *ch) {
  switch ((tsl_stmt_kind)s->kind) {
  case TSL_STMT_FOR:
    return tsl_stmt_for(a, s->u.loop.loop_var, s->u.loop.min, s->u.loop.extent,
                        (tsl_for_kind)s->u.loop.for_kind, s->u.loop.thread_tag,
                        s->u.loop.annotations, ch);
  case TSL_STMT_LET:
    return tsl_stmt_let(a, s->u.let.var, s->u.let.value, ch);
  case TSL_STMT_BLOCK_REALIZE: {
    tsl_block *b = tsl_block_clone(a, s->u.realize.block);
    if (i == 0)
      b->body = ch;
    else
      b->init = ch;
    return sch_with_block(a, s, b);
  }
  case TSL_STMT_IF:
    return tsl_stmt_if(a, s->u.branch.cond, i == 0 ? ch : s->u.branch.then_case,
                       i == 1 ? ch : s->u.branch.else_case);
  case TSL_STMT_SEQ: {
    uint32_t n = s->u.seq.n, k = 0;
    const tsl_stmt **items = TSL_NEW_ARRAY(a, const tsl_stmt *, n);
    for (uint32_t j = 0; j < n; j++) {
      if (j != i)
        items[k++] = s->u.seq.stmts[j];
      else if (ch)
        items[k++] = ch;
    }
    return tsl_stmt_seq(a, k, items);
  }
  default:
    return s;
  }
}

const tsl_stmt *sch_path_rebuild(tsl_arena *a, const sch_path *p,
                                 uint32_t level, const tsl_stmt *stmt) {
  const tsl_stmt *cur = stmt;
  for (uint32_t k = level; k > 0; k--)
    cur = sch_with_child(a, p->stmts[k - 1], p->index[k], cur);
  return cur;
}

void sch_commit(sch_call *c, const tsl_func *func, const tsl_stmt *body) {
  tsl_schedule *sch = c->sch;
  const tsl_module *m = sch->mod;
  tsl_func *nf = TSL_NEW(c->arena, tsl_func);
  *nf = *func;
  nf->body = body;
  tsl_module *nm = TSL_NEW(c->arena, tsl_module);
  *nm = *m;
  const tsl_func **funcs = TSL_NEW_ARRAY(c->arena, const tsl_func *, m->n_funcs);
  for (uint32_t i = 0; i < m->n_funcs; i++)
    funcs[i] = m->funcs[i]->name == func->name ? nf : m->funcs[i];
  nm->funcs = funcs;
  sch->mod = nm;
}

/* ---- names and blocks ------------------------------------------------------- */

char *sch_name_join(char *buf, size_t cap, const char *a, const char *b, int64_t num) {
  size_t n = 0;
  for (const char *s = a; s && *s && n + 1 < cap; s++)
    buf[n++] = *s;
  for (const char *s = b; s && *s && n + 1 < cap; s++)
    buf[n++] = *s;
  if (num >= 0) {
    char digits[24];
    size_t k = 0;
    do
      digits[k++] = (char)('0' + num % 10);
    while ((num /= 10) && k < sizeof digits);
    while (k && n + 1 < cap)
      buf[n++] = digits[--k];
  }
  if (cap)
    buf[n < cap ? n : cap - 1] = '\0';
  return buf;
}

tsl_str sch_fresh_block_name(sch_call *c, const tsl_func *f, const char *base) {
  char buf[512];
  sch_name_join(buf, sizeof buf, base, NULL, -1);
  for (uint32_t k = 1;; k++) {
    tsl_str s = tsl_intern(c->sch->ctx, buf);
    uint32_t count = 0;
    count_blocks(f->body, s, &count);
    if (!count)
      return s;
    sch_name_join(buf, sizeof buf, base, "_", k);
  }
}

const tsl_var *sch_new_var(sch_call *c, const char *name, tsl_dtype dtype) {
  return tsl_var_new(c->arena, name, dtype);
}

sch_path *sch_paths_new(sch_call *c, uint32_t n) {
  return tsl_arena_alloc_raw(c->arena, sizeof(sch_path) * (n ? n : 1));
}

void sch_path_set(sch_path *dst, const sch_path *src) {
  dst->func = src->func;
  dst->depth = src->depth;
  memcpy(dst->stmts, src->stmts, sizeof *src->stmts * src->depth);
  memcpy(dst->index, src->index, sizeof *src->index * src->depth);
  if (src->depth < SCH_MAX_DEPTH) {
    dst->stmts[src->depth] = NULL;
    dst->index[src->depth] = 0;
  }
}

/* The block realizes under p's target, not nested in one another, in tree
 * order: counted when `out` is NULL, else written to out[*n]. */
static void collect(sch_path *p, sch_path *out, uint32_t *n) {
  const tsl_stmt *s = sch_path_target(p);
  if (s->kind == TSL_STMT_BLOCK_REALIZE && p->depth > 0) {
    if (out)
      sch_path_set(&out[*n], p);
    ++*n;
    return;
  }
  uint32_t nch = n_children(s);
  for (uint32_t i = 0; i < nch; i++) {
    const tsl_stmt *ch = child(s, i);
    if (!ch || p->depth >= SCH_MAX_DEPTH)
      continue;
    p->stmts[p->depth] = ch;
    p->index[p->depth] = i;
    p->depth++;
    collect(p, out, n);
    p->depth--;
  }
}

uint32_t sch_child_blocks(sch_call *c, const sch_path *base, sch_path **out) {
  sch_path *p = sch_paths_new(c, 1);
  sch_path_set(p, base);
  const tsl_stmt *s = sch_path_target(p);
  if (s->kind == TSL_STMT_BLOCK_REALIZE) {
    /* children of a block: walk its body only (not the init) */
    p->stmts[p->depth] = s->u.realize.block->body;
    p->index[p->depth] = 0;
    p->depth++;
  }
  /* counted first: a path is large (SCH_MAX_DEPTH entries), so the array
   * is allocated once at its size */
  uint32_t n = 0;
  collect(p, NULL, &n);
  *out = sch_paths_new(c, n);
  n = 0;
  collect(p, *out, &n);
  return n;
}

uint32_t sch_paths_common_level(const sch_path *ps, uint32_t n) {
  uint32_t level = 0;
  for (;;) {
    uint32_t next = level + 1;
    for (uint32_t i = 0; i < n; i++)
      if (next >= ps[i].depth || next >= ps[0].depth || ps[i].stmts[next] != ps[0].stmts[next])
        return level;
    level = next;
  }
}

uint32_t sch_block_deps(sch_call *c, const sch_path *p, int producers, sch_path *out,
                        uint32_t max) {
  const tsl_block *b = sch_path_block(p);
  sch_path sp = *p;
  sp.depth = sch_path_scope_level(p, p->depth - 1) + 1;
  sch_path *kids;
  uint32_t n = sch_child_blocks(c, &sp, &kids), self = n, found = 0;
  for (uint32_t i = 0; i < n; i++)
    if (sch_path_block(&kids[i]) == b)
      self = i;
  for (uint32_t i = 0; i < n; i++) {
    const tsl_block *o = sch_path_block(&kids[i]);
    int hit = 0;
    if (producers && i < self) {
      for (uint32_t r = 0; r < b->n_reads && !hit; r++)
        hit = sch_regions_have(o->writes, o->n_writes, b->reads[r].buffer);
    } else if (!producers && i > self && self < n) {
      for (uint32_t w = 0; w < b->n_writes && !hit; w++)
        hit = sch_regions_have(o->reads, o->n_reads, b->writes[w].buffer);
    }
    if (hit && out && found < max)
      out[found] = kids[i];
    found += hit;
  }
  return found;
}

int sch_regions_have(const tsl_buffer_region *r, uint32_t n,
                     const tsl_buffer *b) {
  for (uint32_t i = 0; i < n; i++)
    if (r[i].buffer == b)
      return 1;
  return 0;
}

static int first_block(const tsl_stmt *s, void *ud) {
  if (s->kind != TSL_STMT_BLOCK_REALIZE)
    return 0;
  *(const char **)ud = s->u.realize.block->name;
  return 1;
}

const char *sch_first_block_name(const tsl_stmt *s) {
  const char *name = NULL;
  tsl_stmt_visitor v = {.stmt = first_block, .user_data = &name};
  tsl_stmt_visit(s, &v);
  return name;
}

const tsl_stmt *tsl_schedule_get_stmt(tsl_schedule *sch, tsl_sch_rv rv) {
  if (rv >= sch->n_rvs)
    return NULL;
  const sch_rv *r = &sch->rvs[rv];
  if (r->kind != TSL_RV_BLOCK && r->kind != TSL_RV_LOOP)
    return NULL;
  const tsl_func *f = sch_func(sch, r->func);
  sch_path p;
  if (!f || !(r->kind == TSL_RV_BLOCK ? sch_find_block(f, r->u.block, &p) != 0
                                      : sch_find_loop(f, r->u.loop, &p) != 0))
    return NULL;
  return sch_path_target(&p);
}
