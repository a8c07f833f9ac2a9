/*
 * tessel/script.h — the TVMScript front end: parser and printer.
 *
 * The parser reads the TVMScript subset that TVM prints and its users
 * write, older and newer spellings alike (T.Buffer[(..), ".."] and
 * T.Buffer((..), ".."), T.block and T.axis.remap, ...), either an
 * @I.ir_module / @tvm.script.ir_module class of @T.prim_func methods or a
 * single bare @T.prim_func. Blocks that omit T.reads/T.writes get inferred
 * regions; a function body without a root block gets an implicit one.
 *
 * The printer writes canonical TVMScript in the newer form, which the parser
 * reads back to a structurally equal module; printing is idempotent.
 */
#ifndef TESSEL_SCRIPT_H
#define TESSEL_SCRIPT_H

#include "tessel/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse `len` bytes of `src` (need not be NUL-terminated) into a module
 * built in `arena`. `filename` is used in messages only.
 * Returns TSL_OK, or TSL_EPARSE / TSL_EINVALID with `diag` holding
 *   file:line:col: error: message
 *     <source line>
 *          ^
 *   note: what would be valid
 * Never crashes on any input; on error *out is NULL and whatever was built
 * stays in the arena (free the arena to reclaim it). */
TSL_API int tsl_parse(tsl_arena *arena, const char *filename, const char *src,
                      size_t len, const tsl_module **out, tsl_diag *diag);

/* Convenience: read and parse a file. */
TSL_API int tsl_parse_file(tsl_arena *arena, const char *path,
                           const tsl_module **out, tsl_diag *diag);

/* ---- expression fragments -----------------------------------------------
 * One Python expression of TVMScript read on its own: the body of a lambda
 * in a schedule script (`(i // 4, i % 4)`), or an argument such as
 * `T.float32(0)`. Tuples and lists nest; every other node becomes a typed
 * TIR expression built in `arena`, in which each `vars[k]` is in scope under
 * its own name (no buffers are in scope). Messages locate errors at
 * `filename`:`line`:`col` + the offset in `src`, where line:col is the
 * position of src[0] in that file. */
enum { TSL_TREE_EXPR = 0, TSL_TREE_TUPLE = 1, TSL_TREE_LIST = 2 };
typedef struct tsl_expr_tree tsl_expr_tree;
struct tsl_expr_tree {
  uint32_t kind; /* TSL_TREE_* */
  uint32_t n;    /* TUPLE, LIST: number of items */
  const tsl_expr *expr;        /* EXPR */
  const tsl_expr_tree *items;  /* TUPLE, LIST */
};
TSL_API int tsl_parse_fragment(tsl_arena *arena, const char *filename,
                               uint32_t line, uint32_t col, const char *src,
                               size_t len, uint32_t n_vars,
                               const tsl_var *const *vars, tsl_expr_tree *out,
                               tsl_diag *diag);

/* Canonical TVMScript of a module (bare modules print as a lone
 * @T.prim_func). Returns a malloc'ed string; the caller frees it. */
TSL_API char *tsl_print_module(const tsl_module *m);
/* One function, as a bare @T.prim_func. */
TSL_API char *tsl_print_func(const tsl_func *f);
/* Fragments, for messages and debugging: an expression on one line, a
 * statement indented by `indent` spaces. Variable names are printed as
 * stored (no renaming). */
TSL_API char *tsl_print_expr(const tsl_expr *e);
TSL_API char *tsl_print_stmt(const tsl_stmt *s, int indent);

#ifdef __cplusplus
}
#endif
#endif /* TESSEL_SCRIPT_H */
