/*
 * The tensor-intrinsic registry: built-ins, lookup, count and names,
 * signature checks at registration, and tensorize with a user intrinsic
 * whose implementation takes strides and an offset from the matched region.
 */
#include "tap.h"
#include "tessel/tessel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char desc_src[] =
    "@T.prim_func\n"
    "def desc(a: T.handle, c: T.handle):\n"
    "    A = T.match_buffer(a, (4, 4), \"float32\", offset_factor=1)\n"
    "    C = T.match_buffer(c, (4, 4), \"float32\", offset_factor=1)\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(A[0:4, 0:4])\n"
    "        T.writes(C[0:4, 0:4])\n"
    "        for i, j in T.grid(4, 4):\n"
    "            with T.block(\"copy\"):\n"
    "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "                T.reads(A[vi, vj])\n"
    "                T.writes(C[vi, vj])\n"
    "                C[vi, vj] = A[vi, vj] * T.float32(2)\n";

/* The implementation views the regions through symbolic strides/offsets. */
static const char impl_src[] =
    "@T.prim_func\n"
    "def impl(a: T.handle, c: T.handle):\n"
    "    sa = T.int32()\n"
    "    sc = T.int32()\n"
    "    oa = T.int32()\n"
    "    oc = T.int32()\n"
    "    A = T.match_buffer(a, (4, 4), \"float32\", strides=[sa, 1], "
    "elem_offset=oa, offset_factor=1)\n"
    "    C = T.match_buffer(c, (4, 4), \"float32\", strides=[sc, 1], "
    "elem_offset=oc, offset_factor=1)\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(A[0:4, 0:4])\n"
    "        T.writes(C[0:4, 0:4])\n"
    "        for i in range(4):\n"
    "            for j in T.unroll(4):\n"
    "                C[i, j] = A[i, j] + A[i, j]\n";

static const char half_src[] =
    "@T.prim_func\n"
    "def impl(a: T.handle, c: T.handle):\n"
    "    A = T.match_buffer(a, (4, 4), \"float16\")\n"
    "    C = T.match_buffer(c, (4, 4), \"float32\")\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(A[0:4, 0:4])\n"
    "        T.writes(C[0:4, 0:4])\n"
    "        for i, j in T.grid(4, 4):\n"
    "            C[i, j] = T.Cast(\"float32\", A[i, j])\n";

static const char one_param_src[] =
    "@T.prim_func\n"
    "def impl(c: T.handle):\n"
    "    C = T.match_buffer(c, (4, 4), \"float32\")\n"
    "    with T.block(\"root\"):\n"
    "        T.reads()\n"
    "        T.writes(C[0:4, 0:4])\n"
    "        for i, j in T.grid(4, 4):\n"
    "            C[i, j] = T.float32(0)\n";

static const char wide_src[] =
    "@T.prim_func\n"
    "def impl(a: T.handle, c: T.handle):\n"
    "    A = T.match_buffer(a, (4, 8), \"float32\")\n"
    "    C = T.match_buffer(c, (4, 4), \"float32\")\n"
    "    with T.block(\"root\"):\n"
    "        T.reads(A[0:4, 0:8])\n"
    "        T.writes(C[0:4, 0:4])\n"
    "        for i, j in T.grid(4, 4):\n"
    "            C[i, j] = A[i, j]\n";

static const char prog_src[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 16), \"float32\"), C: T.Buffer((16, 16), "
    "\"float32\")):\n"
    "    for i0, j0, i1, j1 in T.grid(4, 4, 4, 4):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(16, i0 * 4 + i1)\n"
    "            vj = T.axis.spatial(16, j0 * 4 + j1)\n"
    "            T.reads(A[vi, vj])\n"
    "            T.writes(C[vi, vj])\n"
    "            C[vi, vj] = A[vi, vj] * T.float32(2)\n";

/* Every buffer storage (`B.data`) and variable an evaluated call uses must
 * belong to a match_buffer of an enclosing block: the implementation's
 * own parameters must not survive tensorize. */
typedef struct views {
  const tsl_buffer *bufs[16];
  uint32_t n;
  int stray;
} views;

static int view_block(const tsl_block *b, const tsl_stmt *realize, void *ud) {
  (void)realize;
  views *v = ud;
  for (uint32_t i = 0; i < b->n_match_buffers && v->n < 16; i++)
    v->bufs[v->n++] = b->match_buffers[i].buffer;
  return 0;
}

static int view_use(const tsl_expr *e, void *ud) {
  views *v = ud;
  int found = 0;
  for (uint32_t i = 0; i < v->n; i++)
    found |= e->kind == TSL_EXPR_BUFFER_DATA ? e->u.buffer == v->bufs[i]
             : e->kind == TSL_EXPR_VAR       ? v->bufs[i]->elem_offset &&
                                             v->bufs[i]->elem_offset->kind == TSL_EXPR_VAR &&
                                             v->bufs[i]->elem_offset->u.var == e->u.var
                                             : 1;
  v->stray |= !found;
  return 0;
}

static int view_expr(const tsl_expr *e, const tsl_stmt *owner, void *ud) {
  if (owner->kind == TSL_STMT_EVALUATE)
    tsl_expr_visit(e, view_use, ud);
  return 0;
}

static const tsl_func *parse_func(tsl_arena *a, const char *src) {
  const tsl_module *m = NULL;
  tsl_diag d = {0};
  if (tsl_parse(a, "intrin.py", src, strlen(src), &m, &d) != TSL_OK) {
    tap_diag("%s", d.text);
    return NULL;
  }
  return m->funcs[0];
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  tsl_diag d = {0};
  tsl_intrin_registry *reg = NULL;

  ok(tsl_intrin_registry_new(ctx, &reg, &d) == TSL_OK && reg,
     "a new registry loads the built-ins");
  uint32_t n0 = tsl_intrin_registry_count(reg);
  ok(n0 >= 2, "at least two built-ins (%u)", n0);
  int found = 0;
  for (uint32_t i = 0; i < n0; i++)
    found |= strcmp(tsl_intrin_registry_name(reg, i), "mma_4x4x4_f32") == 0;
  ok(found, "mma_4x4x4_f32 is listed");
  const tsl_func *desc = NULL, *impl = NULL;
  ok(tsl_intrin_registry_get(reg, "mma_4x4x4_f32", &desc, &impl) == 1 &&
         desc && impl && desc != impl,
     "lookup returns the description and the implementation");
  const tsl_func *keep = (const tsl_func *)&d;
  const tsl_func *keep2 = keep;
  ok(tsl_intrin_registry_get(reg, "nope", &keep, &keep2) == 0 &&
         keep == (const tsl_func *)&d && keep2 == keep,
     "lookup of a missing name returns 0 and leaves the outputs alone");
  ok(tsl_intrin_registry_name(reg, n0) == NULL, "name past the end is NULL");

  const tsl_func *udesc = parse_func(a, desc_src);
  const tsl_func *uimpl = parse_func(a, impl_src);
  const tsl_func *half = parse_func(a, half_src);
  const tsl_func *one = parse_func(a, one_param_src);
  const tsl_func *wide = parse_func(a, wide_src);
  ok(udesc && uimpl && half && one && wide, "test intrinsics parse");
  if (!(udesc && uimpl && half && one && wide))
    return tap_done();

  ok(tsl_intrin_registry_add(reg, "mma_4x4x4_f32", udesc, uimpl, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "already registered"),
     "a duplicate name is an error: %s", d.text);
  ok(tsl_intrin_registry_add(reg, "bad_dtype", udesc, half, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "dtype float32 in the description but float16"),
     "mismatched dtypes are an error: %s", d.text);
  ok(tsl_intrin_registry_add(reg, "bad_count", udesc, one, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "takes 2 parameters but the implementation 1"),
     "mismatched parameter counts are an error: %s", d.text);
  ok(tsl_intrin_registry_add(reg, "bad_shape", udesc, wide, &d) ==
             TSL_EINVALID &&
         strstr(d.text, "extent 4 in dimension 1 in the description but 8"),
     "mismatched shapes are an error: %s", d.text);
  ok(tsl_intrin_registry_count(reg) == n0, "failed adds register nothing");

  ok(tsl_intrin_registry_add(reg, "scale2_4x4", udesc, uimpl, &d) == TSL_OK,
     "a matching pair registers");
  ok(tsl_intrin_registry_count(reg) == n0 + 1 &&
         strcmp(tsl_intrin_registry_name(reg, n0), "scale2_4x4") == 0,
     "count and name see the new intrinsic");
  ok(tsl_intrin_registry_get(reg, "scale2_4x4", &desc, &impl) == 1 &&
         desc == udesc && impl == uimpl,
     "lookup finds the new intrinsic");

  /* tensorize with the user registry */
  const tsl_module *prog = NULL;
  ok(tsl_parse(a, "prog.py", prog_src, strlen(prog_src), &prog, &d) == TSL_OK,
     "program parses");
  tsl_schedule_opts opts = {sizeof opts, NULL, 0, reg};
  tsl_schedule *sch = NULL;
  ok(tsl_schedule_new(ctx, prog, &opts, &sch, &d) == TSL_OK, "schedule");
  static const char script[] =
      "b = sch.get_block(\"C\")\n"
      "l = sch.get_loops(b)\n"
      "sch.tensorize(l[2], \"scale2_4x4\")\n";
  int rc = tsl_script_run(sch, "t.sch", script, strlen(script), &d);
  ok(rc == TSL_OK, "tensorize with a user intrinsic: %s",
     rc ? d.text : "ok");
  const tsl_func *after = tsl_schedule_func(sch);
  tsl_equiv_report rep = {0};
  rc = tsl_interp_check_equivalent(prog->funcs[0], after, NULL, 0, 7, &rep, &d);
  ok(rc == TSL_OK && rep.n_checked == 512,
     "strided implementation computes the same (%lld values): %s",
     (long long)rep.n_checked, rc ? d.text : "ok");
  char *text = tsl_print_module(tsl_schedule_module(sch));
  const tsl_module *back = NULL;
  char why[512] = "";
  rc = tsl_parse(a, "printed", text, strlen(text), &back, &d);
  ok(rc == TSL_OK && tsl_module_equal(back, tsl_schedule_module(sch), why, sizeof why),
     "the strided (match_buffer strides/elem_offset) result reparses equal: %s %s",
     rc ? d.text : "", why);
  free(text);
  static const char bad[] = "sch.tensorize(\"C_o\", \"x\")\n";
  rc = tsl_script_run(sch, "t.sch", bad, strlen(bad), &d);
  ok(rc == TSL_ENOTFOUND && strstr(d.text, "registered: mma_4x4x4_f32") &&
         strstr(d.text, "scale2_4x4"),
     "an unknown name lists the registered intrinsics: %s", d.text);
  tsl_schedule_free(sch);

  /* a folder of intrinsic files */
  const char *root = getenv("TESSEL_SOURCE_ROOT");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/cli/data/intrin", root ? root : ".");
  uint32_t added = 9;
  ok(tsl_intrin_registry_add_dir(reg, a, "/nonexistent/folder", &added, &d) == TSL_OK &&
         added == 0,
     "a folder that does not exist adds nothing");
  ok(tsl_intrin_registry_add_dir(reg, a, dir, &added, &d) == TSL_OK && added == 1 &&
         tsl_intrin_registry_get(reg, "dot4", NULL, NULL),
     "the folder's intrin__dot4__desc.py / __impl.py register as dot4: %s", d.text);
  ok(tsl_intrin_registry_add_dir(reg, a, dir, &added, &d) == TSL_EINVALID && added == 0 &&
         strstr(d.text, "already registered") && strstr(d.text, "intrin__dot4__impl.py"),
     "registering the folder twice names the files: %s", d.text);

  /* the implementation's A.data / A.elem_offset become its match_buffers' */
  char path[4200];
  snprintf(path, sizeof path, "%s/dot.py", dir);
  prog = NULL;
  ok(tsl_parse_file(a, path, &prog, &d) == TSL_OK, "dot.py parses: %s", d.text);
  sch = NULL;
  static const char dot_script[] =
      "b = sch.get_block(\"dot\")\n"
      "i, k = sch.get_loops(b)\n"
      "ko, ki = sch.split(k, factors=[None, 4])\n"
      "sch.decompose_reduction(b, ko)\n"
      "sch.tensorize(ki, \"dot4\")\n";
  rc = prog ? tsl_schedule_new(ctx, prog, &opts, &sch, &d) : TSL_EINVALID;
  if (!rc)
    rc = tsl_script_run(sch, "dot.sch", dot_script, strlen(dot_script), &d);
  ok(rc == TSL_OK, "tensorize with dot4: %s", rc ? d.text : "ok");
  if (rc == TSL_OK) {
    views v = {0};
    tsl_stmt_visitor vis = {.block = view_block, .expr = view_expr, .user_data = &v};
    tsl_stmt_visit(tsl_schedule_func(sch)->body, &vis);
    ok(v.n == 3 && !v.stray,
       "the call reads the storage and offsets of the 3 match_buffers, nothing else");
    const tsl_func *dimpl = NULL;
    tsl_intrin_registry_get(reg, "dot4", NULL, &dimpl);
    const tsl_buffer *c1 = v.bufs[2], *c = dimpl->params[2].buffer;
    ok(c1->offset_factor == 1 && c1->elem_offset && c1->elem_offset->kind == TSL_EXPR_VAR &&
           c->elem_offset && c->elem_offset->kind == TSL_EXPR_VAR &&
           c1->elem_offset->u.var != c->elem_offset->u.var,
       "the implementation's offset variable (offset_factor=1) is copied, not shared");
  }
  tsl_schedule_free(sch);

  tsl_intrin_registry_free(reg);
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
