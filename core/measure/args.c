/*
 * The arguments of one measurement: shapes and scalar values from the
 * source function and the binds (tsl_func_make_args, which also names a
 * missing binding), seeded random contents copied into 64-byte aligned
 * buffers, the reference's copy in shared memory, and the packed slot arrays
 * of target.h's calling convention.
 */
#include "measure_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

size_t measure_elem_bytes(tsl_dtype t) {
  size_t b = ((size_t)t.bits * (t.lanes ? t.lanes : 1) + 7) / 8;
  return b ? b : 1;
}

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

static const tsl_binding *find_bind(const tsl_run_opts *o, const char *name) {
  for (uint32_t i = 0; i < o->n_binds; i++)
    if (o->binds[i].name && strcmp(o->binds[i].name, name) == 0)
      return &o->binds[i];
  return NULL;
}

int measure_args_make(const tsl_lowered_func *lf, const tsl_run_opts *opts,
                   measure_args *a, tsl_diag *diag) {
  memset(a, 0, sizeof *a);
  const tsl_func *f = lf->source;
  if (!f)
    return tsl_diag_set(diag, TSL_EINVALID, "lowered function '%s' has no source function",
                        lf->name ? lf->name : "?");
  if (lf->n_params != f->n_params)
    return tsl_diag_set(diag, TSL_EINVALID,
                        "lowered function '%s' has %u parameters but its source has %u",
                        lf->name ? lf->name : f->name, lf->n_params, f->n_params);
  uint32_t n = f->n_params, nv = lf->n_size_vars;
  a->n_params = n;
  a->n_size_vars = nv;
  a->meta = calloc(n + 1, sizeof *a->meta);
  a->bytes = calloc(n + 1, sizeof *a->bytes);
  a->pristine = calloc(n + 1, sizeof(void *));
  a->work = calloc(n + 1, sizeof(void *));
  a->ref = calloc(n + 1, sizeof(void *));
  a->ints = calloc(n + nv + 1, sizeof *a->ints);
  a->floats = calloc(n + 1, sizeof *a->floats);
  a->slots = calloc(n + nv + 1, sizeof(void *));
  a->ref_slots = calloc(n + nv + 1, sizeof(void *));
  a->is_output = calloc(n + 1, 1);
  a->ref_scale = calloc(n + 1, sizeof *a->ref_scale);
  if (!a->meta || !a->bytes || !a->pristine || !a->work || !a->ref || !a->ints ||
      !a->floats || !a->slots || !a->ref_slots || !a->is_output || !a->ref_scale) {
    measure_args_free(a);
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory for the argument list");
  }
  int rc = tsl_func_make_args(f, opts->binds, opts->n_binds, opts->seed, a->meta, diag);
  if (rc) {
    free(a->meta);
    a->meta = NULL; /* make_args freed what it made */
    measure_args_free(a);
    return rc;
  }
  for (uint32_t p = 0; p < n && !rc; p++) {
    tsl_arg *m = &a->meta[p];
    if (m->is_scalar) {
      tsl_dtype dt = f->params[p].var->dtype;
      a->ints[p] = m->int_value;
      a->floats[p] = m->float_value;
      a->slots[p] = a->ref_slots[p] =
          tsl_dtype_is_float(dt) ? (void *)&a->floats[p] : (void *)&a->ints[p];
      continue;
    }
    a->is_output[p] = (uint8_t)(tsl_func_param_is_output(f, p) != 0);
    size_t bytes = (size_t)tsl_tensor_numel(&m->tensor) * measure_elem_bytes(m->tensor.dtype);
    size_t cap = round64(bytes ? bytes : 1);
    a->bytes[p] = bytes;
    /* whole pages: a persistent worker write-protects them (runner.c) */
    a->pristine[p] = aligned_alloc(4096, (cap + 4095) & ~(size_t)4095);
    a->work[p] = aligned_alloc(64, cap);
    void *r = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    a->ref[p] = r == MAP_FAILED ? NULL : r;
    if (!a->pristine[p] || !a->work[p] || !a->ref[p]) {
      rc = tsl_diag_set(diag, TSL_ENOMEM,
                        "out of memory for buffer '%s' (%zu bytes, three copies)",
                        f->params[p].buffer->name, bytes);
      break;
    }
    memcpy(a->pristine[p], m->tensor.data, bytes);
    free(m->tensor.data); /* keep dtype and shape */
    m->tensor.data = NULL;
    a->slots[p] = a->work[p];
    a->ref_slots[p] = a->ref[p];
  }
  for (uint32_t v = 0; v < nv && !rc; v++) {
    const char *name = lf->size_vars[v]->name;
    const tsl_binding *b = find_bind(opts, name);
    if (!b) {
      rc = tsl_diag_set(diag, TSL_EINVALID,
                        "symbolic size '%s' of function '%s' has no value; bind it, "
                        "e.g. --bind %s=64",
                        name, f->name, name);
      break;
    }
    a->ints[n + v] = b->value;
    a->slots[n + v] = a->ref_slots[n + v] = &a->ints[n + v];
  }
  if (rc) {
    measure_args_free(a);
    return rc;
  }
  measure_args_reset_work(a);
  measure_args_reset_ref(a);
  return TSL_OK;
}

void measure_args_reset_work(measure_args *a) {
  for (uint32_t p = 0; p < a->n_params; p++)
    if (a->work && a->work[p])
      memcpy(a->work[p], a->pristine[p], a->bytes[p]);
}

void measure_args_protect(measure_args *a) {
  for (uint32_t p = 0; p < a->n_params; p++) {
    size_t len = (a->bytes[p] + 4095) & ~(size_t)4095;
    if (a->pristine && a->pristine[p] && len)
      mprotect(a->pristine[p], len, PROT_READ);
    if (a->ref && a->ref[p] && len)
      mprotect(a->ref[p], len, PROT_READ);
  }
}

void measure_args_reset_ref(measure_args *a) {
  for (uint32_t p = 0; p < a->n_params; p++)
    if (a->ref && a->ref[p])
      memcpy(a->ref[p], a->pristine[p], a->bytes[p]);
}

tsl_arg *measure_args_ref_view(const measure_args *a) {
  tsl_arg *v = calloc(a->n_params + 1, sizeof *v);
  if (!v)
    return NULL;
  for (uint32_t p = 0; p < a->n_params; p++) {
    v[p] = a->meta[p];
    if (!v[p].is_scalar)
      v[p].tensor.data = a->ref[p];
  }
  return v;
}

void measure_args_free(measure_args *a) {
  for (uint32_t p = 0; p < a->n_params; p++) {
    if (a->meta && !a->meta[p].is_scalar)
      tsl_tensor_free(&a->meta[p].tensor);
    if (a->pristine)
      free(a->pristine[p]);
    if (a->work)
      free(a->work[p]);
    if (a->ref && a->ref[p])
      munmap(a->ref[p], round64(a->bytes[p] ? a->bytes[p] : 1));
  }
  free(a->meta);
  free(a->bytes);
  free(a->pristine);
  free(a->work);
  free(a->ref);
  free(a->ints);
  free(a->floats);
  free(a->slots);
  free(a->ref_slots);
  free(a->is_output);
  free(a->ref_scale);
  memset(a, 0, sizeof *a);
}
