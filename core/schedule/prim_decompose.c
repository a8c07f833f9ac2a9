/*
 * decompose_reduction(block, loop): split a reduction block with T.init()
 * into an init block "<name>_init", placed right before `loop` under fresh
 * copies ("<loop>_init") of the loops between `loop` and the block that its
 * spatial iterators use, and an update block "<name>_update" without init.
 * Returns the init block. Semantics follow TVM's DecomposeReduction.
 */
#include "prim_reduction.h"

#include <string.h>

/* "i, j, k": the loops between the block's scope and the block. */
static const char *loop_names(sch_call *c, const sch_path *bp, uint32_t from) {
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  for (uint32_t k = from; k + 1 < bp->depth; k++)
    if (bp->stmts[k]->kind == TSL_STMT_FOR)
      tsl_strbuf_printf(&sb, "%s%s", sb.len ? ", " : "",
                        bp->stmts[k]->u.loop.loop_var->name);
  const char *s = tsl_arena_strdup(c->arena, sb.len ? sb.data : "none");
  tsl_strbuf_free(&sb);
  return s;
}

int sch_apply_decompose_reduction(sch_call *c) {
  sch_path bp, lp;
  int rc = sch_block_path(c, c->args[0].u.rv, &bp);
  if (rc)
    return rc;
  rc = sch_loop_path(c, c->args[1].u.rv, &lp);
  if (rc)
    return rc;
  tsl_arena *a = c->arena;
  const tsl_block *b = sch_path_block(&bp);
  const tsl_stmt *loop = sch_path_target(&lp);
  const tsl_stmt *realize = sch_path_target(&bp);
  uint32_t scope = sch_path_scope_level(&bp, bp.depth - 1);
  uint32_t L = 0;
  for (uint32_t k = scope + 1; k + 1 < bp.depth; k++)
    if (bp.stmts[k] == loop)
      L = k;
  if (!L || bp.func != lp.func) {
    sch_path *kids;
    uint32_t nk = sch_child_blocks(c, &lp, &kids);
    return sch_fail(c, TSL_EINVALID,
                    "loop '%s'%s%s%s is not an ancestor of block '%s'; the "
                    "loops above '%s' are: %s",
                    loop->u.loop.loop_var->name, nk ? " (above block '" : "",
                    nk ? sch_path_block(&kids[0])->name : "", nk ? "')" : "",
                    b->name, b->name, loop_names(c, &bp, scope + 1));
  }
  rc = sch_check_reduction(c, &bp);
  if (rc)
    return rc;
  /* loops above `loop` must not be used by reduce iterators */
  for (uint32_t k = scope + 1; k < L; k++) {
    if (bp.stmts[k]->kind != TSL_STMT_FOR)
      continue;
    const tsl_var *lv = bp.stmts[k]->u.loop.loop_var;
    for (uint32_t i = 0; i < b->n_iter_vars; i++)
      if (b->iter_vars[i].iter_type == TSL_ITER_REDUCE &&
          tsl_expr_uses_var(realize->u.realize.iter_values[i], lv))
        return sch_fail(c, TSL_EINVALID,
                        "loop '%s' is below loop '%s', which reduce iterator "
                        "'%s' of block '%s' uses; the loop must be at or above "
                        "every loop that a reduce iterator uses",
                        loop->u.loop.loop_var->name, lv->name,
                        b->iter_vars[i].var->name, b->name);
  }
  /* a loop at or below `loop` that no iterator uses repeats the whole
   * reduction (T.init runs again each time); hoisting the init above it
   * would accumulate across its iterations (TVM does not check this) */
  for (uint32_t k = L; k + 1 < bp.depth; k++) {
    const tsl_stmt *s = bp.stmts[k];
    if (s->kind != TSL_STMT_FOR || (s->u.loop.extent->kind == TSL_EXPR_INT_IMM &&
                                    s->u.loop.extent->u.int_value == 1))
      continue;
    int used = 0;
    for (uint32_t i = 0; i < b->n_iter_vars && !used; i++)
      used = tsl_expr_uses_var(realize->u.realize.iter_values[i],
                               s->u.loop.loop_var);
    if (!used)
      return sch_fail(c, TSL_EINVALID,
                      "loop '%s' binds no iterator of block '%s', so each of "
                      "its iterations repeats the whole reduction with its "
                      "T.init(); an init block before loop '%s' would run "
                      "once for all of them. Decompose at a loop below '%s'",
                      s->u.loop.loop_var->name, b->name,
                      loop->u.loop.loop_var->name, s->u.loop.loop_var->name);
  }
  for (uint32_t k = L + 1; k + 1 < bp.depth; k++)
    if (bp.stmts[k]->kind != TSL_STMT_FOR && bp.stmts[k]->kind != TSL_STMT_SEQ)
      return sch_fail(c, TSL_EUNSUPPORTED,
                      "block '%s' is not directly nested in loops below loop "
                      "'%s' (a %s statement is in between); only loops and "
                      "sequences are supported there",
                      b->name, loop->u.loop.loop_var->name,
                      tsl_stmt_kind_name((tsl_stmt_kind)bp.stmts[k]->kind));

  /* Step 1: the init block's iterators, the spatial ones, renewed */
  tsl_map bmap; /* block iter var -> the init's (or the reduce start) */
  tsl_map_init(&bmap, a);
  uint32_t ni = 0;
  tsl_iter_var *ivs = TSL_NEW_ARRAY(a, tsl_iter_var, b->n_iter_vars + 1);
  const tsl_expr **vals = TSL_NEW_ARRAY(a, const tsl_expr *, b->n_iter_vars + 1);
  for (uint32_t i = 0; i < b->n_iter_vars; i++) {
    const tsl_iter_var *iv = &b->iter_vars[i];
    if (iv->iter_type != TSL_ITER_SPATIAL) {
      /* T.init runs where every reduce iterator is at its start, so an init
       * that reads one (a blockized init's T.where) reads that start */
      tsl_map_put(&bmap, iv->var, (void *)iv->dom.min);
      continue;
    }
    const tsl_var *nv = sch_new_var(c, iv->var->name, iv->var->dtype);
    ivs[ni] = *iv;
    ivs[ni].var = nv;
    vals[ni++] = realize->u.realize.iter_values[i];
    tsl_map_put(&bmap, iv->var, (void *)tsl_expr_var(nv));
  }
  tsl_block *ib = TSL_NEW(a, tsl_block);
  memset(ib, 0, sizeof *ib);
  char buf[512];
  sch_name_join(buf, sizeof buf, b->name, "_init", -1);
  ib->name = sch_fresh_block_name(c, bp.func, buf);
  ib->n_iter_vars = ni;
  ib->iter_vars = ivs;
  ib->body = tsl_stmt_substitute_map(a, b->init, &bmap);
  ib->n_writes = b->n_writes;
  ib->writes = red_subst_regions(a, b->writes, b->n_writes, &bmap);
  ib->reads = TSL_NEW_ARRAY(a, tsl_buffer_region, 1);
  ib->annotations = b->annotations;

  /* Step 2: loops from the block up to `loop` that the bindings use */
  uint32_t nchosen = 0, ndisc = 0;
  uint32_t *chosen = TSL_NEW_ARRAY(a, uint32_t, bp.depth);
  const tsl_var **disc = TSL_NEW_ARRAY(a, const tsl_var *, bp.depth);
  for (uint32_t k = bp.depth - 1; k-- > L;) {
    if (bp.stmts[k]->kind != TSL_STMT_FOR)
      continue;
    const tsl_var *lv = bp.stmts[k]->u.loop.loop_var;
    int used = 0;
    for (uint32_t i = 0; i < ni && !used; i++)
      used = tsl_expr_uses_var(vals[i], lv);
    if (used)
      chosen[nchosen++] = k;
    else
      disc[ndisc++] = lv;
  }
  const tsl_expr *pred = red_project_predicate(
      c, &bp, realize->u.realize.predicate, ndisc, disc);
  const tsl_stmt *body =
      tsl_stmt_block_realize(a, ni, vals, pred, ib);
  tsl_map lmap;
  tsl_map_init(&lmap, a);
  for (uint32_t q = 0; q < nchosen; q++) {
    const tsl_stmt *ol = bp.stmts[chosen[q]];
    sch_name_join(buf, sizeof buf, ol->u.loop.loop_var->name, "_init", -1);
    const tsl_var *nv = sch_new_var(c, buf, ol->u.loop.loop_var->dtype);
    tsl_map_put(&lmap, ol->u.loop.loop_var, (void *)tsl_expr_var(nv));
    tsl_attrs none = {0, NULL};
    body = tsl_stmt_for(a, nv, ol->u.loop.min, ol->u.loop.extent,
                        (tsl_for_kind)ol->u.loop.for_kind,
                        ol->u.loop.for_kind == TSL_FOR_THREAD_BINDING
                            ? ol->u.loop.thread_tag
                            : NULL,
                        none, body);
  }
  body = tsl_stmt_substitute_map(a, body, &lmap);

  /* Step 3: the update block: no init, written buffers read back */
  tsl_block *ub = tsl_block_clone(a, b);
  sch_name_join(buf, sizeof buf, b->name, "_update", -1);
  ub->name = sch_fresh_block_name(c, bp.func, buf);
  ub->init = NULL;
  tsl_buffer_region *reads =
      TSL_NEW_ARRAY(a, tsl_buffer_region, b->n_reads + b->n_writes + 1);
  uint32_t nr = 0;
  for (uint32_t w = 0; w < b->n_writes; w++)
    if (!sch_regions_have(b->reads, b->n_reads, b->writes[w].buffer))
      reads[nr++] = b->writes[w];
  for (uint32_t r = 0; r < b->n_reads; r++)
    reads[nr++] = b->reads[r];
  ub->reads = reads;
  ub->n_reads = nr;

  /* Step 4: rebuild: the update block up to `loop`, then [init, loop] */
  const tsl_stmt *cur = sch_with_block(a, realize, ub);
  for (uint32_t k = bp.depth - 1; k > L; k--)
    cur = sch_with_child(a, bp.stmts[k - 1], bp.index[k], cur);
  const tsl_stmt *items[2] = {body, cur};
  cur = tsl_stmt_seq(a, 2, items);
  sch_commit(c, bp.func, sch_path_rebuild(a, &bp, L, cur));
  sch_rename_block(c, bp.func->name, b->name, ub->name);
  sch_out_block(c, bp.func->name, ib->name);
  return TSL_OK;
}
