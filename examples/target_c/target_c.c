/*
 * target_c.c — a complete tessel target in one file: it emits C99 for the
 * lowered program, compiles it with the system C compiler and loads it with
 * dlopen. Start here to write a target for your own hardware (README.md).
 * Build: cc -std=c99 -shared -fPIC target_c.c $(pkg-config --cflags --libs tessel)
 */
#define _POSIX_C_SOURCE 200809L
#include <tessel/tessel.h>

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tsl_target { char cc[256], cflags[256], describe[600]; };
struct tsl_kernel { void *handle; };
typedef struct emitter { /* lane: inside a vector store's loop over lanes l_ */
  tsl_strbuf *sb;
  tsl_diag *diag;
  int rc, lane;
} emitter;

static int c_create(void *ud, uint32_t n, const tsl_kv *kv, tsl_target **out, tsl_diag *diag) {
  tsl_target *t = *out = calloc(1, sizeof *t);
  if (!t)
    return tsl_diag_set(diag, TSL_ENOMEM, "c target: out of memory");
  strcpy(t->cc, "cc");
  strcpy(t->cflags, "-O2");
  for (uint32_t i = 0; i < n; i++) {
    char *dst = !strcmp(kv[i].key, "cc") ? t->cc : !strcmp(kv[i].key, "cflags") ? t->cflags : 0;
    if (!dst || strlen(kv[i].value) >= sizeof t->cc) {
      free(t);
      *out = NULL;
      return tsl_diag_set(diag, TSL_EINVALID, "c target: %s option '%s'; valid: cc (the C "
                          "compiler, default cc), cflags (default -O2)",
                          dst ? "too long a value for" : "unknown", kv[i].key);
    }
    strcpy(dst, kv[i].value);
  }
  snprintf(t->describe, sizeof t->describe, "c -cc=%s -cflags=%s", t->cc, t->cflags);
  (void)ud;
  return TSL_OK;
}

static void c_destroy(tsl_target *t) { free(t); }
static const char *c_describe(tsl_target *t) { return t->describe; }

static void fail(emitter *em, const char *what, const char *name) {
  if (!em->rc)
    em->rc = tsl_diag_set(em->diag, TSL_EUNSUPPORTED, "c target: %s '%s' is not supported "
                          "(int, uint, bool and float32/64 code without GPU threads)", what, name);
}

/* The C type of one element of `t` (bool: a byte). */
static const char *ctype(emitter *em, tsl_dtype t) {
  static const char *names[3][65] = {
      [TSL_DT_INT] = {[8] = "int8_t", [16] = "int16_t", [32] = "int32_t", [64] = "int64_t"},
      [TSL_DT_UINT] = {[1] = "uint8_t", [8] = "uint8_t", [16] = "uint16_t", [32] = "uint32_t",
                       [64] = "uint64_t"},
      [TSL_DT_FLOAT] = {[32] = "float", [64] = "double"}};
  const char *c = t.code <= TSL_DT_FLOAT && t.bits <= 64 ? names[t.code][t.bits] : NULL;
  char b[32];
  t.lanes = 1;
  if (!c)
    fail(em, "dtype", tsl_dtype_str(t, b));
  return c ? c : "void";
}

static void expr(emitter *em, const tsl_expr *e);
static void stmt(emitter *em, const tsl_stmt *s);

/* A name made an identifier, plus its id: unique and valid C. */
static void name(emitter *em, const char *s, uint32_t id) {
  for (; *s; s++)
    tsl_strbuf_printf(em->sb, "%c", isalnum((unsigned char)*s) ? *s : '_');
  tsl_strbuf_printf(em->sb, "_%u", id);
}

/* Append `fmt`, where %s is a string, %d an int, %e an expression, %S a
 * statement, %v a variable's name and %b a buffer's. */
static void out(emitter *em, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  for (const char *p = fmt; *p; p++) {
    const tsl_var *v;
    const tsl_buffer *b;
    if (*p != '%')
      tsl_strbuf_append_n(em->sb, p, 1);
    else if (*++p == 's')
      tsl_strbuf_append(em->sb, va_arg(ap, const char *));
    else if (*p == 'd')
      tsl_strbuf_printf(em->sb, "%d", va_arg(ap, int));
    else if (*p == 'e')
      expr(em, va_arg(ap, const tsl_expr *));
    else if (*p == 'S')
      stmt(em, va_arg(ap, const tsl_stmt *));
    else if (*p == 'v')
      v = va_arg(ap, const tsl_var *), name(em, v->name, v->id);
    else
      b = va_arg(ap, const tsl_buffer *), name(em, b->name, b->id);
  }
  va_end(ap);
}

static void expr(emitter *em, const tsl_expr *e) {
  static const char *own[TSL_INTRIN_COUNT] = {/* the prelude's, for float and int */
      [TSL_INTRIN_EXP10] = "tsl_exp10", [TSL_INTRIN_RSQRT] = "tsl_rsqrt",
      [TSL_INTRIN_SIGMOID] = "tsl_sigmoid", [TSL_INTRIN_ABS] = "tsl_abs_f",
      [TSL_INTRIN_ISNAN] = "isnan"};
  const char *t = ctype(em, e->dtype), *fn = NULL, *op = tsl_expr_kind_info_of(e->kind)->token;
  const int isf = e->dtype.code == TSL_DT_FLOAT, isu = e->dtype.code == TSL_DT_UINT;
  const int lane = em->lane;
  const double x = e->u.float_value;
  switch (e->kind) {
  case TSL_EXPR_INT_IMM: /* uint64 is stored bit for bit; INT64_MIN has no literal */
    if (!isu && e->u.int_value == INT64_MIN)
      return out(em, "((%s)(-9223372036854775807LL - 1))", t);
    return (void)tsl_strbuf_printf(em->sb, isu ? "((%s)%lluULL)" : "((%s)%lldLL)", t,
                                   (long long)e->u.int_value);
  case TSL_EXPR_FLOAT_IMM:
    if (!isfinite(x))
      return out(em, "((%s)%s)", t, isnan(x) ? "NAN" : x > 0 ? "HUGE_VAL" : "-HUGE_VAL");
    return (void)tsl_strbuf_printf(em->sb, "((%s)%.17g)", t, x);
  case TSL_EXPR_VAR:
    return out(em, "%v", e->u.var);
  case TSL_EXPR_LOAD: /* a flat buffer: one index */
    return out(em, "%b[%e]", e->u.buffer, e->args[0]);
  case TSL_EXPR_RAMP: /* base + lane * stride */
    em->lane = 0;
    out(em, "(%e + %s * %e)", e->args[0], lane ? "l_" : "0", e->args[1]);
    em->lane = lane;
    return;
  case TSL_EXPR_MOD: case TSL_EXPR_AND: case TSL_EXPR_OR:
    op = e->kind == TSL_EXPR_MOD ? (isf ? NULL : "%") : e->kind == TSL_EXPR_AND ? "&&" : "||";
    /* fall through */
  case TSL_EXPR_ADD: case TSL_EXPR_SUB: case TSL_EXPR_MUL: case TSL_EXPR_DIV: case TSL_EXPR_EQ:
  case TSL_EXPR_NE: case TSL_EXPR_LT: case TSL_EXPR_LE: case TSL_EXPR_GT: case TSL_EXPR_GE:
    if (op)
      return out(em, "((%s)(%e %s %e))", t, e->args[0], op, e->args[1]);
    break;
  case TSL_EXPR_BROADCAST: case TSL_EXPR_CAST: case TSL_EXPR_NOT: case TSL_EXPR_NEG:
    if (e->dtype.bits == 1 && e->kind == TSL_EXPR_CAST) /* to bool */
      return out(em, "((%e) != 0)", e->args[0]);
    return out(em, "((%s)%s(%e))", t, e->kind == TSL_EXPR_NOT ? "!"
               : e->kind == TSL_EXPR_NEG ? "-" : "", e->args[0]);
  case TSL_EXPR_SELECT: case TSL_EXPR_IF_THEN_ELSE:
    return out(em, "(%e ? %e : %e)", e->args[0], e->args[1], e->args[2]);
  case TSL_EXPR_FLOORDIV: case TSL_EXPR_FLOORMOD: case TSL_EXPR_MIN: case TSL_EXPR_MAX:
    fn = tsl_expr_kind_info_of(e->kind)->name;
    out(em, "((%s)tsl_%s_%s", t, fn, isf ? "f" : isu ? "u" : "i");
    break;
  case TSL_EXPR_CALL: /* math.h: expf for float32, exp for float64 */
    fn = own[e->intrin] ? own[e->intrin] : tsl_intrin_name((tsl_intrin)e->intrin);
    fn = e->intrin == TSL_INTRIN_ABS && !isf ? "tsl_abs_i" : fn; /* exact for integers */
    if (!isf && !own[e->intrin])
      return fail(em, "integer intrinsic", fn);
    out(em, "((%s)%s%s", t, fn, !own[e->intrin] && e->dtype.bits == 32 ? "f" : "");
    break;
  case TSL_EXPR_BUILTIN:
    if (e->intrin == TSL_BUILTIN_LIKELY)
      return expr(em, e->args[0]);
    return fail(em, "builtin", tsl_builtin_info_of((tsl_builtin)e->intrin)->name);
  }
  if (!fn)
    return fail(em, "expression", tsl_expr_kind_info_of(e->kind)->kind_name);
  for (uint32_t i = 0; i < e->n_args; i++) /* a call's arguments */
    out(em, "%s%e", i ? ", " : "(", e->args[i]);
  out(em, "))");
}

static void stmt(emitter *em, const tsl_stmt *s) {
  const tsl_var *v = s->u.loop.loop_var;
  const tsl_buffer *b = s->u.alloc.buffer;
  switch (s->kind) {
  case TSL_STMT_FOR: /* every kind in order: this target has no threads */
    if (s->u.loop.for_kind == TSL_FOR_THREAD_BINDING)
      fail(em, "thread-bound loop", s->u.loop.thread_tag);
    return out(em, "for (%s %v = %e, e_ = %e + %e; %v < e_; ++%v) {\n%S}\n",
               ctype(em, v->dtype), v, s->u.loop.min, s->u.loop.min, s->u.loop.extent, v, v,
               s->u.loop.body);
  case TSL_STMT_STORE: /* a vector store: one scalar store per lane */
    em->lane = s->u.store.value->dtype.lanes > 1;
    if (em->lane)
      out(em, "for (int64_t l_ = 0; l_ < %d; l_++) ", (int)s->u.store.value->dtype.lanes);
    out(em, "%b[%e] = %e;\n", s->u.store.buffer, s->u.store.indices[0], s->u.store.value);
    em->lane = 0;
    return;
  case TSL_STMT_IF:
    out(em, "if (%e) {\n%S", s->u.branch.cond, s->u.branch.then_case);
    if (s->u.branch.else_case)
      out(em, "} else {\n%S", s->u.branch.else_case);
    return out(em, "}\n");
  case TSL_STMT_LET:
    if (s->u.let.var->dtype.lanes > 1)
      return fail(em, "vector let", s->u.let.var->name);
    return out(em, "{ const %s %v = %e;\n%S}\n", ctype(em, s->u.let.var->dtype), s->u.let.var,
               s->u.let.value, s->u.let.body);
  case TSL_STMT_SEQ:
    for (uint32_t i = 0; i < s->u.seq.n; i++)
      stmt(em, s->u.seq.stmts[i]);
    return;
  case TSL_STMT_ALLOCATE: /* on the heap, private to its scope */
    return out(em, "{ %s *%b = malloc(sizeof(%s) * (size_t)(1 + %e));\nif (!%b) return -1;\n"
               "%Sfree(%b); }\n", ctype(em, b->dtype), b, ctype(em, b->dtype), b->shape[0], b,
               s->u.alloc.body, b);
  }
  fail(em, "statement", tsl_stmt_kind_name((tsl_stmt_kind)s->kind));
}

static const char prelude[] =
    "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
    "#define F(n, T, e) static inline T n(T a, T b) { return e; }\n"
    "#define MINMAX(s, T) F(tsl_min_##s, T, a < b ? a : b) F(tsl_max_##s, T, a > b ? a : b)\n"
    "MINMAX(i, int64_t) MINMAX(u, uint64_t) MINMAX(f, double)\n"
    "F(tsl_floordiv_i, int64_t, a / b - (a % b != 0 && (a % b < 0) != (b < 0)))\n"
    "F(tsl_floormod_i, int64_t, a % b + (a % b != 0 && (a % b < 0) != (b < 0) ? b : 0))\n"
    "F(tsl_floordiv_f, double, floor(a / b)) F(tsl_floormod_f, double, a - floor(a / b) * b)\n"
    "F(tsl_floordiv_u, uint64_t, a / b) F(tsl_floormod_u, uint64_t, a % b)\n"
    "#define G(n, T, e) static inline T n(T x) { return e; }\n"
    "G(tsl_abs_i, int64_t, x < 0 ? -x : x) G(tsl_abs_f, double, x < 0 ? -x : x)\n"
    "G(tsl_exp10, double, pow(10.0, x)) G(tsl_rsqrt, double, 1.0 / sqrt(x))\n"
    "G(tsl_sigmoid, double, 1.0 / (1.0 + exp(-x)))\n";

/* The parameters of `f`'s natural entry (one pointer per buffer, scalars by
 * value, sizes as int64_t), or its packed entry's call of it. */
static void params(emitter *em, const tsl_lowered_func *f, int call) {
  for (uint32_t k = 0; k < f->n_params + f->n_size_vars; k++) {
    const tsl_param *p = k < f->n_params ? &f->params[k] : NULL;
    const tsl_var *v = p ? p->var : f->size_vars[k - f->n_params];
    const char *t = p ? ctype(em, p->buffer ? p->buffer->dtype : v->dtype) : "int64_t";
    const char *slot = p && v->dtype.code == TSL_DT_FLOAT ? "double" : "int64_t";
    if (call && p && p->buffer)
      out(em, "%sargs[%d]", k ? ", " : "", (int)k);
    else if (call)
      out(em, "%s(%s)*(const %s *)args[%d]", k ? ", " : "", t, slot, (int)k);
    else if (p && p->buffer)
      out(em, "%s%s *%b", k ? ", " : "", t, p->buffer);
    else
      out(em, "%s%s %v", k ? ", " : "", t, v);
  }
  if (!call && f->n_params + f->n_size_vars == 0)
    out(em, "void");
}

/* The C source of `m`: per function the natural entry "<prefix>_<name>" and
 * the packed entry "<prefix>_<name>_packed" calling it (target.h). */
static int emit(const tsl_lowered_module *m, const char *prefix, tsl_strbuf *sb, tsl_diag *d) {
  emitter em = {sb, d, TSL_OK, 0};
  tsl_strbuf_append(sb, prelude);
  for (uint32_t i = 0; i < m->n_funcs && !em.rc; i++) {
    const tsl_lowered_func *f = m->funcs[i];
    out(&em, "int32_t %s_%s(", prefix, f->name);
    params(&em, f, 0);
    out(&em, ") {\n%Sreturn 0;\n}\nint32_t %s_%s_packed(void *const *args) {\n(void)args;\n"
        "return %s_%s(", f->body, prefix, f->name, prefix, f->name);
    params(&em, f, 1);
    out(&em, ");\n}\n");
  }
  return em.rc;
}

static int write_file(const char *path, const char *text, tsl_diag *diag) {
  FILE *f = fopen(path, "w");
  int bad = !f || fputs(text, f) < 0;
  if ((f && fclose(f)) || bad)
    return tsl_diag_set(diag, TSL_EIO, "c target: cannot write %s", path);
  return TSL_OK;
}

/* Compile `m` into `path`, a shared library or an object file, from the
 * source `path`.c (kept when the compiler fails); its messages go to
 * `path`.log. */
static int compile(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
                   const char *path, int shared, tsl_diag *diag) {
  char cmd[13000], src[4200], log[4200], *text = NULL;
  size_t len;
  snprintf(src, sizeof src, "%s.c", path);
  snprintf(log, sizeof log, "%s.log", path);
  snprintf(cmd, sizeof cmd, "%s -std=c99 %s %s -fPIC -o '%s' '%s' -lm 2>'%s'", t->cc, t->cflags,
           shared ? "-shared" : "-c", path, src, log);
  tsl_strbuf sb;
  tsl_strbuf_init(&sb);
  int rc = emit(m, prefix, &sb, diag);
  rc = rc ? rc : write_file(src, sb.data, diag);
  tsl_strbuf_free(&sb);
  if (!rc && system(cmd) != 0) {
    tsl_read_file(log, &text, &len, diag);
    rc = tsl_diag_set(diag, TSL_ERUNTIME, "c target: `%s` failed:\n%.1000s", cmd,
                      text ? text : "(no output)");
    free(text);
  }
  if (!rc)
    remove(src);
  remove(log);
  return rc;
}

static int c_build(tsl_target *t, const tsl_lowered_module *m, tsl_kernel **out,
                   tsl_build_stats *stats, tsl_diag *diag) {
  char path[] = "/tmp/tessel-c-XXXXXX";
  int fd = mkstemp(path), rc = fd < 0 ? tsl_diag_set(diag, TSL_EIO, "c target: mkstemp: %s",
                                                      path) : compile(t, m, "k", path, 1, diag);
  void *h = rc ? NULL : dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!rc && !h)
    rc = tsl_diag_set(diag, TSL_EIO, "c target: dlopen %s: %s", path, dlerror());
  if (fd >= 0) {
    close(fd);
    remove(path); /* a loaded library stays mapped */
  }
  if (!rc && !(*out = malloc(sizeof **out)))
    rc = tsl_diag_set(diag, TSL_ENOMEM, "c target: out of memory");
  if (rc && h)
    dlclose(h);
  if (!rc)
    (*out)->handle = h;
  (void)stats;
  return rc;
}

static tsl_packed_fn c_lookup(tsl_kernel *k, const char *name) {
  char sym[512];
  snprintf(sym, sizeof sym, "k_%s_packed", name);
  union { void *p; tsl_packed_fn fn; } u = {dlsym(k->handle, sym)}; /* POSIX's way */
  return u.fn;
}

static void c_kernel_free(tsl_kernel *k) {
  dlclose(k->handle);
  free(k);
}

static int c_export(tsl_target *t, const tsl_lowered_module *m, const char *prefix,
                    const char *path, const char *header_path, tsl_diag *diag) {
  size_t n = strlen(path);
  int rc = compile(t, m, prefix, path, n > 3 && !strcmp(path + n - 3, ".so"), diag);
  char *h = rc || !header_path ? NULL : tsl_export_header(m, prefix);
  if (!rc && header_path)
    rc = h ? write_file(header_path, h, diag)
           : tsl_diag_set(diag, TSL_ENOMEM, "c target: out of memory");
  free(h);
  return rc;
}

/* The default design space: TVM's CPU lists, of libtessel's built-in
 * components (a target may name its own, registered beside it). */
static const tsl_space_entry rules[] = {{.name = "AutoInline"}, {.name = "MultiLevelTiling"},
    {.name = "ParallelizeVectorizeUnroll"}, {.name = "RandomComputeLocation"}};
static const tsl_space_entry postprocs[] = {{.name = "DisallowDynamicLoop"},
    {.name = "RewriteParallelVectorizeUnroll"}, {.name = "RewriteReductionBlock"}};
static const tsl_space_entry mutators[] = {{"MutateTileSize", 0.9, 0, NULL},
    {"MutateComputeLocation", 0.05, 0, NULL}, {"MutateUnroll", 0.05, 0, NULL}};
static const tsl_space_defaults space = {sizeof space, 4, rules, 3, postprocs, 3, mutators};

static const tsl_target_vtable vtable = {
    .struct_size = sizeof vtable, .create = c_create, .destroy = c_destroy,
    .describe = c_describe, .build = c_build, .lookup = c_lookup,
    .kernel_free = c_kernel_free, .export_library = c_export, .space_defaults = &space};

TSL_PLUGIN_ENTRY(host, session, diag) {
  static const tsl_component c = {sizeof c, TSL_COMPONENT_TARGET, "c", "0.1.0",
                                  "C99 through the system C compiler (examples/target_c)",
                                  &vtable, NULL};
  return host->register_component(session, &c, diag);
}
