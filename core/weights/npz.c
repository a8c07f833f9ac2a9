/*
 * NumPy's .npz: a zip archive (libzip) of .npy members, one per array,
 * named NAME.npy (np.savez: stored, np.savez_compressed: deflated). Read
 * from memory through a libzip buffer source, each member streamed: its
 * .npy prefix and header first, then exactly the data its header promises
 * straight into the tensor, then the end of the member (where libzip
 * checks the CRC). Written with stored members, each a libzip source of
 * two fragments (the header, the tensor's own bytes), so nothing is copied.
 */
#include "weights_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zip.h>

/* Deflate expands at most about 1032 times; a member that claims more
 * than this many bytes per compressed byte is corrupt (and would make us
 * allocate what the archive cannot hold). */
#define DEFLATE_MAX_RATIO 1040u

static int zip_fail(tsl_diag *diag, const wt_where *at, const char *what, zip_error_t *ze) {
  return wt_fail(diag, TSL_EPARSE, at, "%s: %s (libzip); valid: a zip archive as np.savez "
                 "or np.savez_compressed writes it",
                 what, zip_error_strerror(ze));
}

/* Read exactly n bytes of the member; a short read is "truncated". */
static int read_exact(zip_file_t *zf, void *buf, size_t n, const char *what,
                      const wt_where *at, tsl_diag *diag) {
  size_t got = 0;
  while (got < n) {
    zip_int64_t r = zip_fread(zf, (char *)buf + got, n - got);
    if (r < 0)
      return zip_fail(diag, at, "the member does not read", zip_file_get_error(zf));
    if (r == 0)
      return wt_fail(diag, TSL_EINVALID, at, "truncated: %s has %zu of %zu bytes", what, got,
                     n);
    got += (size_t)r;
  }
  return TSL_OK;
}

/* The member's name without ".npy": the tensor's name (malloc'ed). */
static char *member_tensor_name(const char *m) {
  size_t n = strlen(m);
  if (n >= 4 && !strcmp(m + n - 4, ".npy"))
    n -= 4;
  return strndup(m, n);
}

static int read_member(tsl_weights *w, zip_t *za, zip_uint64_t i, const char *path,
                       tsl_diag *diag) {
  zip_stat_t st;
  zip_stat_init(&st);
  wt_where at = {path, NULL, NULL};
  if (zip_stat_index(za, i, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
    return zip_fail(diag, &at, "an entry of the archive does not read", zip_get_error(za));
  at.member = st.name;
  size_t nlen = strlen(st.name);
  if (nlen == 0 || st.name[nlen - 1] == '/')
    return wt_fail(diag, TSL_EINVALID, &at, "the archive holds a folder or an empty name; "
                   "valid: NAME.npy members only");
  if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
    return wt_fail(diag, TSL_EUNSUPPORTED, &at, "the member is encrypted; valid: "
                   "unencrypted members");
  if (!(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE) ||
      !(st.valid & ZIP_STAT_COMP_METHOD))
    return wt_fail(diag, TSL_EPARSE, &at, "the archive does not give the member's sizes");
  if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
    return wt_fail(diag, TSL_EUNSUPPORTED, &at,
                   "compression method %u; valid: stored (0, np.savez) or deflated (8, "
                   "np.savez_compressed)",
                   (unsigned)st.comp_method);
  if ((st.comp_method == ZIP_CM_STORE && st.size != st.comp_size) ||
      st.size / DEFLATE_MAX_RATIO > st.comp_size)
    return wt_fail(diag, TSL_EPARSE, &at,
                   "the archive is corrupt: %llu bytes stored as %llu; valid: a zip archive "
                   "as np.savez or np.savez_compressed writes it",
                   (unsigned long long)st.size, (unsigned long long)st.comp_size);
  zip_file_t *zf = zip_fopen_index(za, i, 0);
  if (!zf)
    return zip_fail(diag, &at, "the member does not open", zip_get_error(za));
  uint8_t pre[12];
  size_t prefix = 0, hlen = 0;
  char *text = NULL;
  int rc = read_exact(zf, pre, 8, "the .npy prefix", &at, diag);
  if (!rc)
    rc = wt_npy_prefix(pre, 8, &prefix, &hlen, &at, diag);
  if (!rc)
    rc = read_exact(zf, pre + 8, prefix - 8, "the .npy prefix", &at, diag);
  if (!rc)
    rc = wt_npy_prefix(pre, prefix, &prefix, &hlen, &at, diag);
  if (!rc && prefix + hlen > st.size)
    rc = wt_fail(diag, TSL_EINVALID, &at,
                 "truncated: the .npy header claims %zu bytes, the member has %llu in all",
                 hlen, (unsigned long long)st.size);
  if (!rc && !(text = malloc(hlen ? hlen : 1)))
    rc = wt_fail(diag, TSL_ENOMEM, &at, "out of memory");
  if (!rc)
    rc = read_exact(zf, text, hlen, "the .npy header", &at, diag);
  wt_npy_header h;
  if (!rc)
    rc = wt_npy_parse_header(text, hlen, &h, &at, diag);
  free(text);
  char sb[256], db[32];
  if (!rc && st.size - prefix - hlen != h.nbytes)
    rc = wt_fail(diag, TSL_EINVALID, &at,
                 "%s: the data has %llu bytes; shape %s of %s needs exactly %llu",
                 st.size - prefix - hlen < h.nbytes ? "truncated" : "bytes after the data",
                 (unsigned long long)(st.size - prefix - hlen),
                 wt_shape_str(h.ndim, h.shape, sb, sizeof sb), tsl_dtype_str(h.dtype, db),
                 (unsigned long long)h.nbytes);
  char *name = rc ? NULL : member_tensor_name(st.name);
  tsl_weight *t = NULL;
  if (!rc && !name)
    rc = wt_fail(diag, TSL_ENOMEM, &at, "out of memory");
  if (!rc)
    rc = wt_add_alloc(w, name, h.dtype, h.ndim, h.shape, &at, &t, diag);
  free(name);
  if (!rc)
    rc = read_exact(zf, t->data, (size_t)h.nbytes, "the data", &at, diag);
  if (!rc) {
    /* the end of the member: libzip checks its CRC there */
    uint8_t extra;
    zip_int64_t r = zip_fread(zf, &extra, 1);
    if (r < 0)
      rc = zip_fail(diag, &at, "the member does not read to its end", zip_file_get_error(zf));
    else if (r > 0)
      rc = wt_fail(diag, TSL_EINVALID, &at,
                   "bytes after the data: the member holds more than its sizes say");
  }
  zip_fclose(zf);
  return rc;
}

int wt_npz_read(tsl_weights *w, const uint8_t *p, size_t n, const char *path,
                tsl_diag *diag) {
  wt_where at = {path, NULL, NULL};
  if (n == 0)
    return wt_fail(diag, TSL_EPARSE, &at, "empty (0 bytes); valid: a zip archive as np.savez "
                   "or np.savez_compressed writes it (an empty one has 22 bytes)");
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(p, n, 0, &ze);
  if (!src) {
    int rc = zip_fail(diag, &at, "the archive does not open", &ze);
    zip_error_fini(&ze);
    return rc;
  }
  zip_t *za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
  if (!za) {
    zip_source_free(src);
    int rc = zip_error_code_zip(&ze) == ZIP_ER_EXISTS
                 ? wt_fail(diag, TSL_EINVALID, &at, "two members have the same name; valid: "
                           "each name once")
                 : wt_fail(diag, TSL_EPARSE, &at,
                     "not a valid .npz (zip) archive: %s (libzip); valid: a zip archive as "
                     "np.savez or np.savez_compressed writes it",
                     zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return rc;
  }
  zip_error_fini(&ze);
  zip_int64_t m = zip_get_num_entries(za, 0);
  int rc = TSL_OK;
  for (zip_int64_t i = 0; !rc && i < m; i++)
    rc = read_member(w, za, (zip_uint64_t)i, path, diag);
  zip_discard(za);
  return rc;
}

/* An archive without members (libzip writes none: it removes the file):
 * the end-of-central-directory record alone, as np.savez() writes. */
static int save_empty(const char *path, tsl_diag *diag) {
  static const uint8_t eocd[22] = {'P', 'K', 5, 6};
  char tmp[4200];
  FILE *f;
  int rc = wt_tmp_open(path, tmp, sizeof tmp, &f, diag);
  if (rc)
    return rc;
  rc = wt_write(f, eocd, sizeof eocd, path, diag);
  int rc2 = wt_tmp_finish(f, tmp, path, rc == TSL_OK, diag);
  return rc ? rc : rc2;
}

int wt_npz_save(const tsl_weights *w, const char *path, tsl_diag *diag) {
  wt_where at = {path, NULL, NULL};
  uint32_t n = tsl_weights_count(w);
  int zerr = 0;
  /* check every tensor first: a refused one leaves no file behind */
  tsl_strbuf *hdr = calloc(n ? n : 1, sizeof *hdr);
  if (!hdr)
    return wt_fail(diag, TSL_ENOMEM, &at, "out of memory");
  int rc = TSL_OK;
  for (uint32_t i = 0; i < n; i++) {
    tsl_strbuf_init(&hdr[i]);
    if (!rc)
      rc = wt_npy_header_write(tsl_weights_at(w, i), &hdr[i], &at, diag);
  }
  if (!rc && n == 0)
    rc = save_empty(path, diag);
  zip_t *za = NULL;
  if (!rc && n && !(za = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr))) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, zerr);
    rc = wt_fail(diag, TSL_EIO, &at, "cannot write: %s", zip_error_strerror(&ze));
    zip_error_fini(&ze);
  }
  for (uint32_t i = 0; !rc && i < n; i++) {
    const tsl_weight *t = tsl_weights_at(w, i);
    zip_buffer_fragment_t fr[2] = {{(zip_uint8_t *)hdr[i].data, hdr[i].len},
                                   {(zip_uint8_t *)t->data, t->nbytes}};
    zip_source_t *src = zip_source_buffer_fragment(za, fr, t->nbytes ? 2 : 1, 0);
    char *member = malloc(strlen(t->name) + 5);
    zip_int64_t idx = -1;
    if (src && member) {
      sprintf(member, "%s.npy", t->name);
      idx = zip_file_add(za, member, src, ZIP_FL_ENC_UTF_8);
    }
    free(member);
    if (idx < 0 || zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0) < 0) {
      if (src && idx < 0)
        zip_source_free(src);
      wt_where here = {path, NULL, t->name};
      rc = wt_fail(diag, TSL_EIO, &here, "cannot add it to the archive: %s (libzip)",
                   zip_error_strerror(zip_get_error(za)));
    }
  }
  if (za) {
    if (!rc && zip_close(za) == 0)
      za = NULL;
    else {
      if (!rc)
        rc = wt_fail(diag, TSL_EIO, &at, "cannot write: %s (libzip)",
                     zip_error_strerror(zip_get_error(za)));
      zip_discard(za);
    }
  }
  for (uint32_t i = 0; i < n; i++)
    tsl_strbuf_free(&hdr[i]);
  free(hdr);
  return rc;
}
