/*
 * parser_internal.h — shared state of the TVMScript front end (internal).
 *
 * The parser runs in stages over one `pstate`:
 *   lexer.c          source bytes -> tokens (INDENT/DEDENT/NEWLINE as Python)
 *   parser_syntax.c  tokens -> a small Python AST (anode / astmt)
 *   parser_func.c    module, functions, parameters, root block
 *   parser_stmt.c    statements, loops, blocks
 *   parser_expr.c    expressions, typing, T.* calls
 *   parser_access.c  buffer accesses, regions, annotations
 *   parser_buffer.c  buffer declarations; parser_scope.c symbol table
 *   region.c         block access-region inference
 * Tokens, AST and temporaries live in a scratch arena freed after the parse;
 * IR goes to the caller's arena. Errors longjmp back to tsl_parse with the
 * diagnostic already formatted (file:line:col, source line, caret, note).
 */
#ifndef TESSEL_PARSER_INTERNAL_H
#define TESSEL_PARSER_INTERNAL_H

#include "tessel/analysis.h"
#include "tessel/script.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Keep error-only and per-statement helpers out of the recursive frames. */
#define PS_NOINLINE __attribute__((noinline))

/* Nesting caps. What is accepted is bounded on the IR: statements nest at
 * most PS_MAX_DEPTH deep and an expression is at most PS_MAX_DEPTH high.
 * The syntax limits are looser so that printing an accepted program (which
 * adds parentheses, T.float16(..) wrappers, the class and def levels) always
 * gives text that parses again; all of them bound the recursion. */
#define PS_MAX_DEPTH 256
#define PS_SYNTAX_DEPTH 1024            /* expression recursion in the syntax stage */
#define PS_AST_HEIGHT 512               /* height of an expression syntax tree */
#define PS_MAX_BRACKETS 512             /* brackets open at once */
#define PS_MAX_INDENT (PS_MAX_DEPTH + 16) /* indentation levels / statement nesting */

/* ---- tokens ------------------------------------------------------------ */

enum {
  TK_EOF,
  TK_NEWLINE,
  TK_INDENT,
  TK_DEDENT,
  TK_NAME,
  TK_INT,
  TK_FLOAT,
  TK_STRING,
  TK_OP,
  TK_ERROR /* lexer error; message in pstate.lex_msg / lex_note */
};

/* Operator and punctuation ids (TK_OP). */
#define PS_OPS(X)                                                              \
  X(LPAREN, "(")                                                               \
  X(RPAREN, ")")                                                               \
  X(LBRACK, "[")                                                               \
  X(RBRACK, "]")                                                               \
  X(LBRACE, "{")                                                               \
  X(RBRACE, "}")                                                               \
  X(COMMA, ",")                                                                \
  X(COLON, ":")                                                                \
  X(DOT, ".")                                                                  \
  X(SEMI, ";")                                                                 \
  X(AT, "@")                                                                   \
  X(ARROW, "->")                                                               \
  X(ASSIGN, "=")                                                               \
  X(PLUS, "+")                                                                 \
  X(MINUS, "-")                                                                \
  X(STAR, "*")                                                                 \
  X(POW, "**")                                                                 \
  X(SLASH, "/")                                                                \
  X(DSLASH, "//")                                                              \
  X(PERCENT, "%")                                                              \
  X(LT, "<")                                                                   \
  X(GT, ">")                                                                   \
  X(LE, "<=")                                                                  \
  X(GE, ">=")                                                                  \
  X(EQ, "==")                                                                  \
  X(NE, "!=")                                                                  \
  X(AMP, "&")                                                                  \
  X(PIPE, "|")                                                                 \
  X(CARET, "^")                                                                \
  X(TILDE, "~")                                                                \
  X(LSHIFT, "<<")                                                              \
  X(RSHIFT, ">>")                                                              \
  X(PLUS_EQ, "+=")                                                             \
  X(MINUS_EQ, "-=")                                                            \
  X(STAR_EQ, "*=")                                                             \
  X(SLASH_EQ, "/=")                                                            \
  X(DSLASH_EQ, "//=")                                                          \
  X(PERCENT_EQ, "%=")                                                          \
  X(OTHER_EQ, "op=") /* &= |= ^= <<= >>= **= : unsupported */                 \
  X(WALRUS, ":=")

typedef enum ps_op {
#define PS_X_(id, s) OP_##id,
  PS_OPS(PS_X_)
#undef PS_X_
  OP_COUNT
} ps_op;

const char *ps_op_text(int op);

typedef struct ptok {
  uint8_t kind;
  uint8_t op;      /* TK_OP: ps_op */
  uint8_t bad_int; /* TK_INT: 1 fits only uint64 (ival holds the bits), 2 too large */
  uint32_t off;    /* byte offset of the first byte */
  uint32_t len;    /* byte length in the source */
  int64_t ival;    /* TK_INT */
  double fval;     /* TK_FLOAT */
  const char *sval; /* TK_STRING: decoded bytes (NUL-terminated), scratch */
  uint32_t slen;
} ptok;

/* ---- syntax tree ------------------------------------------------------- */

typedef enum {
  AX_NAME,
  AX_ATTR, /* a.s */
  AX_INT,
  AX_FLOAT,
  AX_STR,
  AX_TRUE,
  AX_FALSE,
  AX_NONE,
  AX_BINOP,   /* op: ps_op (+ - * / // % ** & | ^ << >>), a, b */
  AX_UNARY,   /* op: OP_MINUS, OP_PLUS, OP_TILDE; a */
  AX_NOT,     /* a */
  AX_BOOLOP,  /* op: 0 and, 1 or; a, b */
  AX_COMPARE, /* op: ps_op (< <= ...); a, b; chained = 1 when chained */
  AX_CALL,    /* a = callee; items = positional; kw* = keywords */
  AX_SUBSCRIPT, /* a = value; items = indices (a tuple is flattened) */
  AX_SLICE,   /* a, b, c = lower, upper, step (each may be NULL) */
  AX_TUPLE,
  AX_LIST,
  AX_DICT,    /* items = k0, v0, k1, v1, ... (n = 2 * entries) */
  AX_STARRED  /* *a (rejected by the semantic stage) */
} anode_kind;

typedef struct anode anode;
struct anode {
  uint8_t kind;
  uint8_t op;
  uint8_t chained;    /* AX_COMPARE */
  uint8_t paren;      /* AX_TUPLE written with parentheses */
  uint16_t depth;     /* height of this subtree */
  uint32_t tok;       /* first token of the node */
  uint32_t optok;     /* operator / attribute name / '[' / '(' token */
  uint32_t end_tok;   /* last token of the node */
  const char *s;      /* NAME / ATTR name (source bytes), STR value */
  uint32_t slen;
  int64_t ival;
  uint8_t bad_int;
  double fval;
  anode *a, *b, *c;
  uint32_t n;
  anode **items;
  uint32_t nkw;
  const char **kwname;
  uint32_t *kwlen;
  uint32_t *kwtok;
  anode **kwval;
};

typedef enum {
  AS_EXPR,
  AS_ASSIGN,    /* target = value */
  AS_AUGASSIGN, /* target op= value; op: ps_op of the operator */
  AS_ANNASSIGN, /* target: ann [= value] */
  AS_FOR,       /* for target in value: body */
  AS_WITH,      /* with value [as target]: body */
  AS_IF,        /* if value: body [else: orelse] */
  AS_PASS,
  AS_RETURN,    /* value may be NULL */
  AS_FUNCDEF,
  AS_CLASSDEF,
  AS_IMPORT,    /* import / from-import: aliases */
  AS_UNSUPPORTED /* while, assert, del, ...: rejected by the semantic stage */
} astmt_kind;

typedef struct aparam {
  const char *name;
  uint32_t len;
  uint32_t tok;
  anode *ann; /* may be NULL */
  anode *def; /* default value, may be NULL */
} aparam;

/* One imported name: `from <module> import <name> as <asname>` or
 * `import <name> as <asname>` (module NULL). */
typedef struct aimport {
  const char *module;
  uint32_t module_len;
  const char *name;
  uint32_t name_len;
  const char *asname; /* may be NULL */
  uint32_t asname_len;
} aimport;

typedef struct astmt astmt;
struct astmt {
  uint8_t kind;
  uint8_t op;
  uint8_t is_elif; /* AS_IF produced from an elif */
  uint32_t tok;    /* first token */
  anode *target;
  anode *value;
  anode *ann;
  uint32_t nbody, norelse;
  astmt **body;
  astmt **orelse;
  uint32_t else_tok;
  /* def / class */
  const char *name;
  uint32_t namelen;
  uint32_t nametok;
  uint32_t ndecorators;
  anode **decorators;
  uint32_t nparams;
  aparam *params;
  /* import */
  uint32_t nimports;
  aimport *imports;
};

/* ---- semantic symbols ---------------------------------------------------- */

enum {
  SYM_VAR,    /* scalar var: param, loop var, iter var, let var, size var */
  SYM_BUFFER, /* buffer */
  SYM_HANDLE, /* handle param not (yet) matched to a buffer */
  SYM_MARK    /* scope boundary */
};

enum { VAR_PLAIN, VAR_LOOP, VAR_ITER, VAR_LET, VAR_SIZE, VAR_PARAM };

typedef struct psym {
  uint8_t kind;
  uint8_t var_kind;
  const char *name; /* interned */
  uint32_t tok;     /* where it was defined */
  const tsl_var *var;
  const tsl_buffer *buf;
  const tsl_expr *loop_min, *loop_ext; /* VAR_LOOP */
  uint32_t param_index;                /* SYM_HANDLE */
  uint32_t size_index;                 /* VAR_SIZE: index in pfunc.sizes */
} psym;

/* A block variable that went out of scope, for a helpful message. */
typedef struct pdead {
  const char *name;
  const char *block;
} pdead;

/* The block whose statement list is being read (for T.reads & co). */
typedef struct pblock {
  const char *name;
  uint32_t tok;
  int is_root;     /* the root block of the function */
  int implicit;    /* root block created by the parser */
  uint32_t n_iter, cap_iter;
  tsl_iter_var *iters;
  const tsl_expr **values;
  int has_reads, has_writes;
  uint32_t n_reads, n_writes;
  tsl_buffer_region *reads, *writes;
  const tsl_expr *predicate;
  uint32_t where_tok;
  const tsl_stmt *init;
  int has_attrs;
  tsl_attrs attrs;
  uint32_t n_alloc, cap_alloc;
  const tsl_buffer **allocs;
  uint32_t n_match, cap_match;
  tsl_match_buffer *matches;
} pblock;

/* A size variable (n = T.int64()) and its first use outside buffer_map
 * shapes; it must end up bound by a parameter buffer's shape. */
typedef struct psize {
  const tsl_var *var;
  int used;
  uint32_t use_tok;
} psize;

/* The function being built. */
typedef struct pfunc {
  uint32_t n_params;
  tsl_param *params;
  int has_attrs;
  tsl_attrs attrs;
  uint32_t n_size, cap_size;
  psize *sizes;
} pfunc;

/* A value while typing expressions: a typed IR expression, or a "weak"
 * Python literal whose dtype comes from context (folded as Python does). */
enum { PV_TYPED = 0, PV_INT, PV_FLOAT, PV_BOOL };
typedef struct pval {
  const tsl_expr *e; /* PV_TYPED */
  uint8_t weak;
  int64_t i; /* PV_INT, PV_BOOL */
  double f;  /* PV_FLOAT */
  const anode *node;
} pval;

/* The Relax stage of a model parse (parser_rx.c). */
typedef struct prx prx;

/* ---- parser state ------------------------------------------------------ */

typedef struct pstate {
  tsl_ctx *ctx;
  tsl_arena *arena;   /* output IR */
  tsl_arena *scratch; /* tokens, AST, temporaries */
  const char *file;
  const char *src;
  size_t len;
  tsl_diag *diag;
  /* tsl_parse_model_constants: the metadata constants' struct info */
  uint32_t n_constant_sinfo;
  const struct tsl_rx_sinfo *const *constant_sinfo;
  jmp_buf jb;
  int status;
  char note[2048];

  /* lexer output */
  ptok *toks;
  uint32_t ntoks, captoks;
  char lex_msg[512];
  char lex_note[512];

  /* syntax stage */
  uint32_t pos;
  int depth;  /* expression nesting */
  int sdepth; /* statement nesting */
  int edepth; /* ps_expr recursion (semantic stage) */
  int in_bufmap;  /* reading a parameter buffer's shape (binds size vars) */

  /* semantic stage */
  psym *syms;
  uint32_t nsyms, capsyms;
  pdead *dead;
  uint32_t ndead, capdead;
  const char *tir_alias[8];
  uint32_t n_tir_alias;
  const char *ir_alias[8];
  uint32_t n_ir_alias;
  const char *relax_alias[8];
  uint32_t n_relax_alias;
  prx *rx; /* tsl_parse_model: Relax functions are read; NULL: refused */
  pfunc *func;
  int stmt_depth; /* IR nesting (loops, blocks, ifs, lets) */
  int top;        /* reading the function's top-level statements */
  pblock *cur_block; /* innermost enclosing block (NULL: none) */
  tsl_analyzer *an; /* lazily created; freed by tsl_parse */
} pstate;

/* ---- errors (parser.c) ---------------------------------------------------- */

/* Format `file:line:col: error: msg`, the source line, a caret at byte
 * offset `off`, and `note: <ps->note>` (when set), then longjmp out. */
_Noreturn void ps_error_at(pstate *ps, int status, uint32_t off,
                           const char *fmt, ...) TSL_PRINTF(4, 5);
/* Semantic error at AST node `n`: sets the note (NULL: none) and reports
 * `fmt` as TSL_EINVALID at the node's offset, then longjmp out. */
_Noreturn void ps_fail(pstate *ps, const anode *n, const char *note,
                       const char *fmt, ...) TSL_PRINTF(4, 5);
/* Set the note for the next error (printf-style). */
void ps_note(pstate *ps, const char *fmt, ...) TSL_PRINTF(2, 3);
/* Offset of token `t` / of the end of token `t`. */
uint32_t ps_tok_off(const pstate *ps, uint32_t t);
uint32_t ps_tok_end(const pstate *ps, uint32_t t);
/* Offset where an AST node starts / where its operator is. */
uint32_t ps_node_off(const pstate *ps, const anode *n);
uint32_t ps_node_opoff(const pstate *ps, const anode *n);

/* Scratch allocation helpers. */
void *ps_alloc(pstate *ps, size_t n);
/* Grow an array held in scratch: returns a pointer with room for
 * `need` elements of `elem` bytes, copying `*cap` old ones. */
void *ps_grow(pstate *ps, void *arr, uint32_t *cap, uint32_t need, size_t elem);
/* Interned copy of n source bytes. */
tsl_str ps_intern(pstate *ps, const char *s, size_t n);

/* Append a name to a ", "-separated list in `buf` (bounded). */
void ps_list_add(char *buf, size_t cap, const char *name);
/* Levenshtein distance, capped (for "did you mean"). */
int ps_edit_distance(const char *a, size_t an, const char *b, size_t bn);

/* ---- stages ---------------------------------------------------------------- */

/* lexer.c: tokenise ps->src into ps->toks (ends with TK_EOF or TK_ERROR). */
void ps_lex(pstate *ps);

/* parser_syntax.c: the whole file as a statement list. */
astmt **ps_parse_file_syntax(pstate *ps, uint32_t *n);

/* parser_func.c: module / functions from the AST. */
const tsl_module *ps_build_module(pstate *ps, astmt **stmts, uint32_t n);

/* parser_scope.c: symbol table. */
void ps_scope_push(pstate *ps);
void ps_scope_pop(pstate *ps, const char *block_name);
/* Innermost symbol named (interned) `name`, or NULL. */
psym *ps_lookup(pstate *ps, const char *name);
/* Define a symbol in the innermost scope, shadowing one of an enclosing
 * scope until this scope ends; errors on a name already defined in the
 * innermost scope. */
psym *ps_define(pstate *ps, const char *name, uint32_t tok, int kind);
/* Block variable that went out of scope, or NULL. */
const pdead *ps_lookup_dead(pstate *ps, const char *name);
/* List names of kind `kind` (-1: all values) in scope into buf. */
void ps_scope_names(pstate *ps, int kind, char *buf, size_t cap);

/* parser_expr.c: expressions. */
typedef enum { NS_NONE = 0, NS_TIR, NS_IR, NS_TVM } ps_ns;
/* If `n` is a dotted name rooted at a namespace alias (T.x.y, I.x,
 * tvm.script.tir.x), write the canonical path ("T.x.y") into buf and
 * return 1; else 0. */
int ps_dotted(pstate *ps, const anode *n, char *buf, size_t cap);
pval ps_expr(pstate *ps, const anode *n);
/* Typed expression: a weak literal gets its default dtype. */
const tsl_expr *ps_typed(pstate *ps, pval v);
/* Expression of dtype `t`: weak literals become constants of `t`, narrower
 * integers are widened with a cast; anything else is an error that names
 * `what` ("value stored into buffer 'C'"). */
const tsl_expr *ps_coerce(pstate *ps, pval v, tsl_dtype t, const char *what);
/* The value stored into a buffer element of dtype `t`, converted as TVM's
 * BufferStore does: literals become constants of `t`, other values of
 * another dtype (same lanes, or a scalar) are cast. */
const tsl_expr *ps_store_value(pstate *ps, pval v, tsl_dtype t, const char *what);
/* `e` cast to `t` as TVM's cast(): constants fold, scalars broadcast. */
const tsl_expr *ps_cast_fold(pstate *ps, const tsl_expr *e, tsl_dtype t);
/* TVM's BinaryOpMatchTypes: the common dtype of two arithmetic operands
 * (0 when none). */
int ps_match_dtypes(tsl_dtype a, tsl_dtype b, tsl_dtype *out);
/* Integer arithmetic folded as TVM's operators do (TryConstFold: constant
 * operands fold, x + 0, x * 1, x // 1 ... return x); operands of different
 * integer widths are matched first. kind: ADD, SUB, MUL, DIV (truncating),
 * FLOORDIV. Errors (at `where`) on division by a zero constant. */
const tsl_expr *ps_int_arith(pstate *ps, tsl_expr_kind kind, const tsl_expr *a,
                             const tsl_expr *b, const anode *where);
/* An integer-typed expression (indices, extents, shapes). */
const tsl_expr *ps_int_expr(pstate *ps, const anode *n, const char *what);
/* A bool expression (conditions). */
const tsl_expr *ps_bool_expr(pstate *ps, const anode *n, const char *what);
/* Bring two integer expressions to one dtype (widening). */
void ps_unify_ints(pstate *ps, const tsl_expr **a, const tsl_expr **b,
                   const anode *where);
/* A dtype named by a string literal node. */
tsl_dtype ps_dtype_arg(pstate *ps, const anode *n);
/* The same, also accepting "void". */
tsl_dtype ps_dtype_or_void(pstate *ps, const anode *n);
/* A string literal node's value (interned). */
tsl_str ps_str_arg(pstate *ps, const anode *n, const char *what);
/* A plain integer literal (with optional sign) or error. */
int64_t ps_int_literal(pstate *ps, const anode *n, const char *what);
/* Constant difference hi - lo when provable, else NULL-free symbolic. */
const tsl_expr *ps_extent(pstate *ps, const tsl_expr *lo, const tsl_expr *hi);
/* Structural identity of two expressions (same vars by pointer). */
int ps_expr_same(const tsl_expr *a, const tsl_expr *b);
/* Check call argument counts: positional in [lo, hi] (hi < 0: any). */
void ps_check_arity(pstate *ps, const anode *call, const char *fname, int lo,
                    int hi, const char *usage);
/* Check that every keyword of `call` is in the NULL-terminated list. */
void ps_check_kwargs(pstate *ps, const anode *call, const char *fname,
                     const char *const *allowed);
/* Positional argument i, else keyword `kw`, else NULL. */
const anode *ps_arg(pstate *ps, const anode *call, uint32_t i, const char *kw);
/* Buffer element access `A[i, j]` (store target or load): the buffer, its
 * indices (a slice i:i+4 becomes a Ramp) and the vector lanes (1 scalar). */
const tsl_buffer *ps_access(pstate *ps, const anode *sub,
                            const tsl_expr ***idx, uint16_t *lanes);
/* Annotation values ({...} dictionaries) for T.func_attr & co. */
tsl_attrs ps_attrs(pstate *ps, const anode *dict);
/* Does the integer v fit in the integer dtype t? */
int ps_int_fits(tsl_dtype t, int64_t v);
/* A buffer load A[i, j] (parser_access.c). */
pval ps_load_expr(pstate *ps, const anode *n);
/* Buffer region `A[0:16, vi]` (or a bare buffer name = whole buffer). */
tsl_buffer_region ps_region(pstate *ps, const anode *n);
/* Resolve a buffer name node (error when not a buffer). */
const tsl_buffer *ps_buffer_ref(pstate *ps, const anode *n);

/* parser_builtin.c: TVM builtins, buffer attributes and methods. */
/* A call argument converted as TVM's FFI does: strings become StrImm,
 * Python ints int32 (int64 when too large), floats float32. */
const tsl_expr *ps_call_arg(pstate *ps, const anode *n);
/* Accept and check (then ignore) a `dtype=` keyword, as TVM's op wrapper
 * drops it; any other keyword is an error. */
void ps_ignored_dtype(pstate *ps, const anode *call, const char *fname);
/* T.<builtin>(...) */
pval ps_builtin_call(pstate *ps, const anode *call, const char *fname, tsl_builtin id);
/* `A.data`, `A.elem_offset` (n is AX_ATTR on a buffer name), or NULL-free
 * error for other attributes. */
pval ps_buffer_attr(pstate *ps, const anode *n);
/* `A.shape[i]`, `A.strides[i]` (n is AX_SUBSCRIPT of such an attribute). */
pval ps_buffer_attr_index(pstate *ps, const anode *n);
/* `A.access_ptr(mask, ptr_type="handle", content_lanes=1, offset=0,
 * extent=None)`, built as TVM's Buffer::access_ptr. */
pval ps_buffer_method(pstate *ps, const anode *call);
/* Is `n` an attribute of a buffer in scope (A.data, A.shape, ...)? */
int ps_is_buffer_attr(pstate *ps, const anode *n);

/* parser_buffer.c: buffer declarations. */
/* A buffer from a T.Buffer(...) / T.Buffer[...] parameter annotation. */
const tsl_buffer *ps_buffer_from_annotation(pstate *ps, const char *name,
                                            const anode *ann);
/* A buffer from the arguments of T.Buffer / T.alloc_buffer /
 * T.match_buffer: the shape is positional argument `first` (then dtype,
 * data, strides, elem_offset, scope, align, offset_factor, buffer_type,
 * axis_separators, by position or keyword). A missing shape takes
 * `def_shape` (error when NULL); a missing dtype takes `def_dtype`. */
const tsl_buffer *ps_buffer_from_call(pstate *ps, const char *name,
                                      const anode *call, uint32_t first,
                                      const char *fname, tsl_dtype def_dtype,
                                      const tsl_expr *const *def_shape,
                                      uint32_t def_ndim);

/* parser_stmt.c: statements. */
const tsl_stmt *ps_stmts(pstate *ps, astmt **stmts, uint32_t n,
                         pblock *direct);
/* A block realize from a `with T.block(...)` statement. */
const tsl_stmt *ps_block_stmt(pstate *ps, const astmt *w, int is_root);
/* Build a block from a finished pblock. */
const tsl_block *ps_finish_block(pstate *ps, pblock *b, const tsl_stmt *body);
/* Error when the IR expression `e` is higher than PS_MAX_DEPTH. */
void ps_check_height(pstate *ps, const tsl_expr *e, const anode *where);
/* Increase/decrease the IR nesting depth (errors past PS_MAX_DEPTH). */
void ps_enter(pstate *ps, uint32_t off);
void ps_leave(pstate *ps);

/* Helpers to check a name node. */
int ps_is_name(const anode *n, const char *s);
/* Is `call` a call of T.<name> (canonical path)? */
int ps_is_tcall(pstate *ps, const anode *n, const char *path);

#endif /* TESSEL_PARSER_INTERNAL_H */
