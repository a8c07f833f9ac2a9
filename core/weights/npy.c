/*
 * NumPy's .npy format: the magic "\x93NUMPY", a major and a minor version
 * byte, the header length (little-endian: 2 bytes in version 1.0, 4 in 2.0
 * and 3.0), the header text (a Python dict literal with the keys 'descr',
 * 'fortran_order' and 'shape', padded with spaces and ended by a newline),
 * then the elements. The header parser reads exactly the literal forms
 * np.save writes (and Python 2's "3L" dims); see README.md for what is
 * refused.
 */
#include "weights_internal.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* ---- the fixed prefix ----------------------------------------------------------- */

int wt_npy_prefix(const uint8_t *p, size_t n, size_t *prefix_len, size_t *header_len,
                  const wt_where *at, tsl_diag *diag) {
  if (n == 0)
    return wt_fail(diag, TSL_EPARSE, at, "empty (0 bytes); valid: a .npy array (it starts "
                                         "with \"\\x93NUMPY\")");
  if (n < WT_NPY_MAGIC_LEN && !memcmp(p, WT_NPY_MAGIC, n))
    return wt_fail(diag, TSL_EPARSE, at,
                   "truncated: %zu bytes, shorter than the .npy magic; valid: a .npy array "
                   "(it starts with \"\\x93NUMPY\")",
                   n);
  if (n < WT_NPY_MAGIC_LEN || memcmp(p, WT_NPY_MAGIC, WT_NPY_MAGIC_LEN))
    return wt_fail(diag, TSL_EPARSE, at,
                   "not a .npy array (it does not start with \"\\x93NUMPY\")");
  if (n < 8)
    return wt_fail(diag, TSL_EPARSE, at, "truncated: the .npy format version is missing");
  unsigned major = p[6], minor = p[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    return wt_fail(diag, TSL_EUNSUPPORTED, at,
                   ".npy format version %u.%u; valid: 1.0, 2.0, 3.0", major, minor);
  *prefix_len = major == 1 ? 10 : 12;
  if (n < *prefix_len)
    return n > 8 ? wt_fail(diag, TSL_EPARSE, at,
                           "truncated: the .npy header length (%zu bytes after the version) "
                           "is cut short",
                           *prefix_len - 8)
                 : TSL_OK;
  size_t len = major == 1 ? (size_t)p[8] | (size_t)p[9] << 8
                          : (size_t)p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 |
                                (size_t)p[11] << 24;
  if (len > WT_NPY_MAX_HEADER)
    return wt_fail(diag, TSL_EUNSUPPORTED, at,
                   "the .npy header claims %zu bytes; valid: at most %u", len,
                   WT_NPY_MAX_HEADER);
  *header_len = len;
  return TSL_OK;
}

/* ---- the header text ------------------------------------------------------------- */

typedef struct cur {
  const char *p, *start, *end;
  const wt_where *at;
  tsl_diag *diag;
} cur;

static void skip_ws(cur *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

/* An error about the header at the cursor, quoting the header (printable,
 * cut at 160 characters). */
static int bad(cur *c, int status, const char *what) {
  char q[200] = "";
  size_t k = 0, len = (size_t)(c->end - c->start);
  for (size_t i = 0; i < len && k < 160; i++) {
    unsigned char ch = (unsigned char)c->start[i];
    k += (size_t)snprintf(q + k, sizeof q - k, isprint(ch) ? "%c" : "\\x%02x", ch);
  }
  return wt_fail(c->diag, status, c->at, "%s (byte %zu of the .npy header)\nnote: the header: %s%s",
                 what, (size_t)(c->p - c->start), len ? q : "(empty)", len > 160 ? "..." : "");
}

static int eat(cur *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) {
    c->p++;
    return 1;
  }
  return 0;
}

/* A quoted Python string without escapes. */
static int str_lit(cur *c, const char **s, size_t *n) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
    return bad(c, TSL_EPARSE, "expected a quoted string");
  char q = *c->p++;
  const char *b = c->p;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\' || *c->p == '\n')
      return bad(c, TSL_EPARSE, "a string with an escape or a newline; valid: a plain "
                                "quoted string such as '<f4'");
    c->p++;
  }
  if (c->p >= c->end)
    return bad(c, TSL_EPARSE, "a string is not closed");
  *s = b;
  *n = (size_t)(c->p - b);
  c->p++;
  return TSL_OK;
}

static int word(cur *c, const char *w) {
  size_t n = strlen(w);
  skip_ws(c);
  if ((size_t)(c->end - c->p) >= n && !memcmp(c->p, w, n) &&
      (c->p + n == c->end || !isalnum((unsigned char)c->p[n]))) {
    c->p += n;
    return 1;
  }
  return 0;
}

static const char *kind_name(char k) {
  switch (k) {
  case 'O': return "Python objects";
  case 'U': return "unicode strings";
  case 'S': case 'a': return "byte strings";
  case 'V': return "raw (void) records";
  case 'c': return "complex numbers";
  case 'M': return "datetimes";
  case 'm': return "timedeltas";
  default: return NULL;
  }
}

static int parse_descr(cur *c, wt_npy_header *h) {
  skip_ws(c);
  if (c->p < c->end && (*c->p == '[' || *c->p == '{'))
    return bad(c, TSL_EUNSUPPORTED,
               "a structured dtype (a list of fields) is not supported; valid: one scalar "
               "dtype");
  const char *s;
  size_t n;
  int rc = str_lit(c, &s, &n);
  if (rc)
    return rc;
  char d[40];
  snprintf(d, sizeof d, "%.*s", (int)(n < 32 ? n : 32), s);
  char order = n ? s[0] : 0;
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return wt_fail(c->diag, TSL_EUNSUPPORTED, c->at,
                   "descr '%s' is not supported: it does not start with a byte order "
                   "('<', '|'); valid: %s",
                   d, wt_npy_descrs());
  char kind = n > 1 ? s[1] : 0;
  unsigned size = 0;
  size_t i = 2;
  for (; i < n && i < 6 && isdigit((unsigned char)s[i]); i++)
    size = size * 10 + (unsigned)(s[i] - '0');
  const char *what = kind_name(kind);
  if (what)
    return wt_fail(c->diag, TSL_EUNSUPPORTED, c->at,
                   "descr '%s' (%s) is not supported; valid: %s", d, what, wt_npy_descrs());
  const wt_dtype_row *row = i == n && i > 2 ? wt_dtype_by_npy(kind, size) : NULL;
  if (!row)
    return wt_fail(c->diag, TSL_EUNSUPPORTED, c->at, "descr '%s' is not supported; valid: %s",
                   d, wt_npy_descrs());
  if (row->size > 1 && order == '>')
    return wt_fail(c->diag, TSL_EUNSUPPORTED, c->at,
                   "descr '%s' is big-endian; valid: little-endian '<%c%u' (in NumPy: "
                   "a.astype(a.dtype.newbyteorder('<')))",
                   d, kind, size);
  if (row->size > 1 && order != '<')
    return wt_fail(c->diag, TSL_EUNSUPPORTED, c->at,
                   "descr '%s' does not say little-endian; valid: '<%c%u'", d, kind, size);
  h->dtype = row->dtype;
  return TSL_OK;
}

static int parse_shape(cur *c, wt_npy_header *h) {
  if (!eat(c, '('))
    return bad(c, TSL_EPARSE, "'shape' is not a tuple; valid: (2, 3), (3,) or ()");
  h->ndim = 0;
  for (;;) {
    if (eat(c, ')'))
      return TSL_OK;
    skip_ws(c);
    if (c->p < c->end && *c->p == '-')
      return bad(c, TSL_EINVALID, "a negative dim in 'shape'; valid: dims >= 0");
    if (c->p >= c->end || !isdigit((unsigned char)*c->p))
      return bad(c, TSL_EPARSE, "expected a dim (an integer >= 0) or ')' in 'shape'");
    uint64_t v = 0;
    for (; c->p < c->end && isdigit((unsigned char)*c->p); c->p++) {
      unsigned dg = (unsigned)(*c->p - '0');
      if (v > ((uint64_t)INT64_MAX - dg) / 10)
        return bad(c, TSL_EINVALID, "a dim of 'shape' is above 2^63 - 1");
      v = v * 10 + dg;
    }
    if (c->p < c->end && *c->p == 'L') /* Python 2's long literal */
      c->p++;
    if (h->ndim == TSL_WEIGHTS_MAX_NDIM)
      return bad(c, TSL_EINVALID, "'shape' has more than 64 dims; valid: at most 64");
    h->shape[h->ndim++] = (int64_t)v;
    if (eat(c, ')'))
      return TSL_OK;
    if (!eat(c, ','))
      return bad(c, TSL_EPARSE, "expected ',' or ')' in 'shape'");
  }
}

int wt_npy_parse_header(const char *text, size_t n, wt_npy_header *h, const wt_where *at,
                        tsl_diag *diag) {
  cur c = {text, text, text + n, at, diag};
  int seen[3] = {0, 0, 0}, rc;
  *h = (wt_npy_header){0};
  if (!eat(&c, '{'))
    return bad(&c, TSL_EPARSE, "the .npy header is not a dict; valid: {'descr': '<f4', "
                               "'fortran_order': False, 'shape': (2, 3), }");
  for (;;) {
    if (eat(&c, '}'))
      break;
    const char *k;
    size_t kn;
    if ((rc = str_lit(&c, &k, &kn)))
      return rc;
    int key = kn == 5 && !memcmp(k, "descr", 5)           ? 0
              : kn == 13 && !memcmp(k, "fortran_order", 13) ? 1
              : kn == 5 && !memcmp(k, "shape", 5)           ? 2
                                                            : -1;
    if (key < 0) {
      char kb[80];
      snprintf(kb, sizeof kb, "unknown key '%.*s' in the .npy header; valid: 'descr', "
               "'fortran_order', 'shape'", (int)(kn < 32 ? kn : 32), k);
      return bad(&c, TSL_EPARSE, kb);
    }
    if (seen[key]++)
      return bad(&c, TSL_EPARSE, "a key appears twice in the .npy header");
    if (!eat(&c, ':'))
      return bad(&c, TSL_EPARSE, "expected ':' after a key");
    if (key == 0)
      rc = parse_descr(&c, h);
    else if (key == 2)
      rc = parse_shape(&c, h);
    else if (word(&c, "True"))
      rc = wt_fail(diag, TSL_EUNSUPPORTED, at,
                   "fortran_order is True (column-major data) and is not supported; valid: "
                   "C order (in NumPy: np.save(path, np.ascontiguousarray(a)))");
    else if (word(&c, "False"))
      rc = TSL_OK;
    else
      rc = bad(&c, TSL_EPARSE, "'fortran_order' is neither True nor False");
    if (rc)
      return rc;
    if (eat(&c, '}'))
      break;
    if (!eat(&c, ','))
      return bad(&c, TSL_EPARSE, "expected ',' or '}' after a value");
  }
  skip_ws(&c);
  if (c.p != c.end)
    return bad(&c, TSL_EPARSE, "text after the header's closing '}'");
  if (!seen[0] || !seen[1] || !seen[2])
    return bad(&c, TSL_EPARSE, !seen[0]   ? "the .npy header has no 'descr'"
                               : !seen[1] ? "the .npy header has no 'fortran_order'"
                                          : "the .npy header has no 'shape'");
  const wt_dtype_row *row = wt_dtype_row_of(h->dtype);
  int s = wt_sizes(h->ndim, h->shape, row->size, &h->numel, &h->nbytes);
  if (s) {
    char sb[256];
    return wt_fail(diag, TSL_EINVALID, at,
                   "shape %s: its size in bytes overflows (the product of the non-zero dims "
                   "times %u bytes must be below 2^63)",
                   wt_shape_str(h->ndim, h->shape, sb, sizeof sb), row->size);
  }
  return TSL_OK;
}

/* ---- writing ---------------------------------------------------------------------- */

int wt_npy_header_write(const tsl_weight *t, tsl_strbuf *sb, const wt_where *at,
                        tsl_diag *diag) {
  const wt_dtype_row *row = wt_dtype_row_of(t->dtype);
  if (!row || !row->npy_kind) {
    char b[32];
    wt_where here = *at;
    here.tensor = t->name;
    return wt_fail(diag, TSL_EUNSUPPORTED, &here,
                   "%s has no NumPy dtype, so no .npy/.npz holds it; valid: save it as "
                   ".safetensors",
                   tsl_dtype_str(t->dtype, b));
  }
  tsl_strbuf text;
  tsl_strbuf_init(&text);
  tsl_strbuf_printf(&text, "{'descr': '%c%c%u', 'fortran_order': False, 'shape': (",
                    row->size == 1 ? '|' : '<', row->npy_kind, row->size);
  for (uint32_t i = 0; i < t->ndim; i++)
    tsl_strbuf_printf(&text, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
  tsl_strbuf_append(&text, t->ndim == 1 ? ",), }" : "), }");
  /* room for the first dim to grow to 21 digits in place, as np.save
   * leaves it, then spaces and a newline to a multiple of 64 bytes */
  if (t->ndim) {
    char dg[24];
    int k = snprintf(dg, sizeof dg, "%lld", (long long)t->shape[0]);
    for (; k < 21; k++)
      tsl_strbuf_append(&text, " ");
  }
  size_t prefix = 10, len = text.len + 1;
  if (((prefix + len + 63) & ~(size_t)63) - prefix > 65535)
    prefix = 12;
  size_t total = (prefix + len + 63) & ~(size_t)63;
  while (text.len + 1 + prefix < total)
    tsl_strbuf_append(&text, " ");
  tsl_strbuf_append(&text, "\n");
  uint8_t pre[12];
  memcpy(pre, WT_NPY_MAGIC, WT_NPY_MAGIC_LEN);
  pre[6] = prefix == 10 ? 1 : 2;
  pre[7] = 0;
  for (size_t i = 0; i < prefix - 8; i++)
    pre[8 + i] = (uint8_t)(text.len >> (8 * i));
  tsl_strbuf_append_n(sb, (const char *)pre, prefix);
  tsl_strbuf_append_n(sb, text.data, text.len);
  tsl_strbuf_free(&text);
  return TSL_OK;
}

/* ---- a whole .npy file -------------------------------------------------------------- */

/* The name of a .npy file's tensor: the file name without folder and
 * ".npy"; "arr_0" (np.savez's first name) when that is empty. */
static void stem(const char *path, char *out, size_t cap) {
  const char *b = path ? strrchr(path, '/') : NULL;
  b = b ? b + 1 : path ? path : "";
  size_t n = strlen(b);
  if (n >= 4 && !strcasecmp(b + n - 4, ".npy"))
    n -= 4;
  if (n == 0 || (path && !strcmp(path, "<memory>")))
    snprintf(out, cap, "arr_0");
  else
    snprintf(out, cap, "%.*s", (int)n, b);
}

int wt_npy_read(tsl_weights *w, const uint8_t *p, size_t n, const char *path,
                tsl_diag *diag) {
  wt_where at = {path, NULL, NULL};
  size_t prefix, hlen;
  int rc = wt_npy_prefix(p, n, &prefix, &hlen, &at, diag);
  if (rc)
    return rc;
  if (n < prefix)
    return wt_fail(diag, TSL_EPARSE, &at, "truncated: the .npy header length is missing");
  if (hlen > n - prefix)
    return wt_fail(diag, TSL_EPARSE, &at,
                   "truncated: the .npy header claims %zu bytes, the file has %zu after "
                   "its %zu-byte prefix",
                   hlen, n - prefix, prefix);
  wt_npy_header h;
  if ((rc = wt_npy_parse_header((const char *)p + prefix, hlen, &h, &at, diag)))
    return rc;
  size_t have = n - prefix - hlen;
  char sb[256], db[32];
  if (have != h.nbytes)
    return wt_fail(diag, TSL_EINVALID, &at,
                   "%s: the data has %zu bytes; shape %s of %s needs exactly %llu",
                   have < h.nbytes ? "truncated" : "bytes after the data", have,
                   wt_shape_str(h.ndim, h.shape, sb, sizeof sb), tsl_dtype_str(h.dtype, db),
                   (unsigned long long)h.nbytes);
  char name[1024];
  stem(path, name, sizeof name);
  tsl_weight *t;
  if ((rc = wt_add_alloc(w, name, h.dtype, h.ndim, h.shape, &at, &t, diag)))
    return rc;
  memcpy(t->data, p + prefix + hlen, (size_t)h.nbytes);
  return TSL_OK;
}

int wt_npy_save(const tsl_weights *w, const char *path, tsl_diag *diag) {
  wt_where at = {path, NULL, NULL};
  uint32_t n = tsl_weights_count(w);
  if (n != 1) {
    tsl_strbuf names;
    tsl_strbuf_init(&names);
    for (uint32_t i = 0; i < n && i < 8; i++)
      tsl_strbuf_printf(&names, "%s'%s'", i ? ", " : "", tsl_weights_at(w, i)->name);
    if (n > 8)
      tsl_strbuf_append(&names, ", ...");
    int rc = wt_fail(diag, TSL_EINVALID, &at,
                     "a .npy file holds exactly one tensor, there are %u%s%s%s; valid: one "
                     "tensor, or a .npz or .safetensors file",
                     n, n ? " (" : "", n ? names.data : "", n ? ")" : "");
    tsl_strbuf_free(&names);
    return rc;
  }
  const tsl_weight *t = tsl_weights_at(w, 0);
  tsl_strbuf hdr;
  tsl_strbuf_init(&hdr);
  int rc = wt_npy_header_write(t, &hdr, &at, diag);
  if (rc) {
    tsl_strbuf_free(&hdr);
    return rc;
  }
  char tmp[4200];
  FILE *f;
  if ((rc = wt_tmp_open(path, tmp, sizeof tmp, &f, diag))) {
    tsl_strbuf_free(&hdr);
    return rc;
  }
  rc = wt_write(f, hdr.data, hdr.len, path, diag);
  if (!rc)
    rc = wt_write(f, t->data, (size_t)t->nbytes, path, diag);
  tsl_strbuf_free(&hdr);
  int rc2 = wt_tmp_finish(f, tmp, path, rc == TSL_OK, diag);
  return rc ? rc : rc2;
}
