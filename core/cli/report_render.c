/*
 * report_render.c — writes the HTML page of `tessel report` from plain
 * arrays (report.h): a header with the database counts, then per workload
 * and target a tuning curve (best-so-far step line) over a scatter of
 * every measurement, as inline SVG, a table of the 10 best records and a
 * table of error counts by status. The markup is XHTML-compatible (every
 * element closed, only the five XML entities and numeric references), all
 * user text is escaped, and every SVG coordinate is finite.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Chart geometry (SVG user units). */
enum { CH_W = 760, CH_H = 320, M_LEFT = 70, M_RIGHT = 20, M_TOP = 40, M_BOTTOM = 50 };
enum { BEST_ROWS = 10, ERROR_TEXT_MAX = 240, TITLE_TEXT_MAX = 160 };

/* ---- text ------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  size_t n;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4;
  else
    return 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  if (n == 3 && ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)))
    return 0; /* overlong or surrogate */
  if (n == 4 && ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90)))
    return 0;
  return n;
}

/* Writes `s` escaped for HTML/XML text and attributes: the five special
 * characters as entities, control characters and invalid UTF-8 as U+FFFD.
 * At most `max` bytes of `s` are shown (0: all), then an ellipsis. */
static void esc_n(FILE *out, const char *s, size_t max) {
  if (!s)
    return;
  const unsigned char *p = (const unsigned char *)s;
  size_t used = 0;
  while (*p) {
    if (max && used >= max) {
      fputs("&#8230;", out);
      return;
    }
    size_t n = utf8_len(p);
    if (n == 0) {
      fputs("&#65533;", out);
      p++;
      used++;
      continue;
    }
    if (n > 1) {
      fwrite(p, 1, n, out);
    } else {
      switch (*p) {
      case '&': fputs("&amp;", out); break;
      case '<': fputs("&lt;", out); break;
      case '>': fputs("&gt;", out); break;
      case '"': fputs("&quot;", out); break;
      case '\'': fputs("&#39;", out); break;
      case '\n': case '\t': fputc(*p, out); break;
      default:
        if (*p < 0x20 || *p == 0x7F)
          fputs("&#65533;", out);
        else
          fputc(*p, out);
      }
    }
    p += n;
    used += n;
  }
}

static void esc(FILE *out, const char *s) { esc_n(out, s, 0); }

/* ---- numbers ----------------------------------------------------------------- */

static int valid_latency(double s) { return isfinite(s) && s > 0; }

/* A point's y value (GFLOPS, or calls/s when the FLOP count is unknown);
 * NAN for records that were not measured successfully. */
static double metric(const report_series *s, const report_point *p) {
  if (p->status != TSL_RUN_OK || !valid_latency(p->latency_s))
    return NAN;
  double v = s->flops > 0 ? s->flops / p->latency_s / 1e9 : 1.0 / p->latency_s;
  return isfinite(v) ? v : NAN;
}

static int is_good(const report_series *s, const report_point *p) {
  return !isnan(metric(s, p));
}

static const char *metric_name(const report_series *s) {
  return s->flops > 0 ? "GFLOPS" : "calls/s";
}

static void fmt_time(char *buf, size_t n, double s) {
  if (!valid_latency(s))
    snprintf(buf, n, "-");
  else if (s >= 1)
    snprintf(buf, n, "%.4g s", s);
  else if (s >= 1e-3)
    snprintf(buf, n, "%.4g ms", s * 1e3);
  else if (s >= 1e-6)
    snprintf(buf, n, "%.4g \xC2\xB5s", s * 1e6);
  else
    snprintf(buf, n, "%.4g ns", s * 1e9);
}

/* 1, 2 or 5 times a power of ten, at least x (x > 0). */
static double nice_step(double x) {
  if (!(x > 0) || !isfinite(x))
    return 1;
  double e = pow(10, floor(log10(x)));
  double f = x / e;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

/* ---- the chart -------------------------------------------------------------- */

typedef struct axes {
  double xlo, xhi, ytop;
} axes;

static double px(const axes *a, double trial) {
  double v = M_LEFT + (trial - a->xlo) / (a->xhi - a->xlo) * (CH_W - M_LEFT - M_RIGHT);
  return isfinite(v) ? v : M_LEFT;
}

static double py(const axes *a, double y) {
  double v = CH_H - M_BOTTOM - y / a->ytop * (CH_H - M_TOP - M_BOTTOM);
  return isfinite(v) ? v : CH_H - M_BOTTOM;
}

static void point_title(FILE *out, const report_series *s, size_t i) {
  const report_point *p = &s->points[i];
  char t[48];
  fmt_time(t, sizeof t, p->latency_s);
  fprintf(out, "<title>trial %zu, record %lld: ", i + 1, (long long)p->record_id);
  if (is_good(s, p)) {
    fprintf(out, "%s, %.4g %s", t, metric(s, p), metric_name(s));
  } else {
    esc(out, p->status == TSL_RUN_OK ? "ok, not timed" : tsl_run_status_name(p->status));
    if (p->error && *p->error) {
      fputs(": ", out);
      esc_n(out, p->error, TITLE_TEXT_MAX);
    }
  }
  fputs("</title>", out);
}

static void render_chart(FILE *out, const report_series *s) {
  size_t n = s->n_points;
  double ymax = 0;
  for (size_t i = 0; i < n; i++) {
    double v = metric(s, &s->points[i]);
    if (!isnan(v) && v > ymax)
      ymax = v;
  }
  axes a = {0.5, (double)(n ? n : 1) + 0.5, 1};
  double ystep = nice_step(ymax > 0 ? ymax / 5 : 0.2);
  a.ytop = ystep * ceil((ymax > 0 ? ymax * 1.05 : 1) / ystep);
  const double x0 = M_LEFT, x1 = CH_W - M_RIGHT, y0 = CH_H - M_BOTTOM, y1 = M_TOP;

  fprintf(out,
          "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
          "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
          CH_W, CH_H, CH_W, CH_H);
  fprintf(out, "<title>tuning curve: best %s so far against trial</title>\n",
          metric_name(s));
  /* grid and y ticks */
  fputs("<g class=\"yaxis\">\n", out);
  for (int k = 0; k * ystep <= a.ytop * (1 + 1e-9) && k <= 100; k++) {
    double v = k * ystep, y = py(&a, v);
    fprintf(out,
            "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.6g</text>\n",
            x0, y, x1, y, x0 - 6, y + 4, v);
  }
  fputs("</g>\n<g class=\"xaxis\">\n", out);
  double xspan = n > 1 ? (double)n : 1;
  double xstep = nice_step(xspan / 8);
  if (xstep < 1)
    xstep = 1;
  for (double t = 1; t <= xspan + 1e-9;) {
    double x = px(&a, t);
    fprintf(out,
            "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
            x, y0, x, y0 + 5, x, y0 + 18, t);
    t = t < xstep ? xstep : t + xstep;
  }
  fputs("</g>\n", out);
  fprintf(out,
          "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
          "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
          x0, y0, x1, y0, x0, y0, x0, y1);
  fprintf(out,
          "<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">trial "
          "(record order)</text>\n",
          (x0 + x1) / 2, CH_H - 10);
  fprintf(out,
          "<text class=\"label\" transform=\"translate(16 %.1f) rotate(-90)\" "
          "text-anchor=\"middle\">%s</text>\n",
          (y0 + y1) / 2, metric_name(s));

  /* every successful measurement */
  fputs("<g class=\"scatter\">\n", out);
  for (size_t i = 0; i < n; i++) {
    if (!is_good(s, &s->points[i]))
      continue;
    fprintf(out, "<circle class=\"pt\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\">",
            px(&a, (double)(i + 1)), py(&a, metric(s, &s->points[i])));
    point_title(out, s, i);
    fputs("</circle>\n", out);
  }
  fputs("</g>\n", out);

  /* the tuning curve: best so far, as a step line */
  double best = NAN;
  size_t npts = 0;
  for (size_t i = 0; i < n; i++) {
    double v = metric(s, &s->points[i]);
    if (isnan(v) || (!isnan(best) && v <= best))
      continue;
    double x = px(&a, (double)(i + 1));
    if (npts == 0)
      fputs("<polyline class=\"best\" points=\"", out);
    else
      fprintf(out, " %.2f,%.2f", x, py(&a, best));
    fprintf(out, "%s%.2f,%.2f", npts ? " " : "", x, py(&a, v));
    best = v;
    npts++;
  }
  if (npts) {
    fprintf(out, " %.2f,%.2f\"/>\n", x1, py(&a, best)); /* holds to the end */
  }

  /* failed records: crosses on the x axis */
  fputs("<g class=\"errors\">\n", out);
  for (size_t i = 0; i < n; i++) {
    if (is_good(s, &s->points[i]))
      continue;
    double x = px(&a, (double)(i + 1));
    fprintf(out,
            "<path class=\"err\" d=\"M%.2f %.2fL%.2f %.2fM%.2f %.2fL%.2f %.2f\">",
            x - 4, y0 - 4, x + 4, y0 + 4, x - 4, y0 + 4, x + 4, y0 - 4);
    point_title(out, s, i);
    fputs("</path>\n", out);
  }
  fputs("</g>\n", out);

  /* legend */
  double lx = x0 + 10, ly = 18;
  fprintf(out,
          "<g class=\"legend\">"
          "<line class=\"best\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
          "<text x=\"%.1f\" y=\"%.1f\">best so far</text>"
          "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>"
          "<text x=\"%.1f\" y=\"%.1f\">measurement</text>"
          "<path class=\"err\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>"
          "<text x=\"%.1f\" y=\"%.1f\">failed or stopped (on the axis)</text></g>\n",
          lx, ly, lx + 24, ly, lx + 30, ly + 4, lx + 140, ly, lx + 150, ly + 4, lx + 256,
          ly - 4, lx + 264, ly + 4, lx + 256, ly + 4, lx + 264, ly - 4, lx + 272, ly + 4);
  fputs("</svg>\n", out);
}

/* ---- tables -------------------------------------------------------------------- */

static int cmp_latency(const void *pa, const void *pb, const report_series *s) {
  const report_point *a = &s->points[*(const size_t *)pa];
  const report_point *b = &s->points[*(const size_t *)pb];
  if (a->latency_s != b->latency_s)
    return a->latency_s < b->latency_s ? -1 : 1;
  /* ties: the older record first */
  size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
  return ia < ib ? -1 : ia > ib;
}

/* The indexes of the `k` fastest good points (insertion into a small
 * sorted list; k is tiny). Returns how many were found. */
static size_t best_k(const report_series *s, size_t *idx, size_t k) {
  size_t m = 0;
  for (size_t i = 0; i < s->n_points; i++) {
    if (!is_good(s, &s->points[i]))
      continue;
    size_t j = m < k ? m++ : k;
    if (j == k && cmp_latency(&i, &idx[k - 1], s) >= 0)
      continue;
    if (j == k)
      j = k - 1;
    while (j > 0 && cmp_latency(&i, &idx[j - 1], s) < 0) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = i;
  }
  return m;
}

static void render_best_table(FILE *out, const report_series *s) {
  size_t idx[BEST_ROWS];
  size_t m = best_k(s, idx, BEST_ROWS);
  fputs("<h3>Best records</h3>\n", out);
  if (m == 0) {
    fputs("<p class=\"none\">No successful measurement.</p>\n", out);
    return;
  }
  fprintf(out,
          "<table class=\"best\"><thead><tr><th>rank</th><th>record</th><th>trial</th>"
          "<th>latency</th><th>%s</th><th>status</th></tr></thead><tbody>\n",
          metric_name(s));
  for (size_t r = 0; r < m; r++) {
    const report_point *p = &s->points[idx[r]];
    char t[48];
    fmt_time(t, sizeof t, p->latency_s);
    fprintf(out,
            "<tr><td>%zu</td><td>%lld</td><td>%zu</td><td>%s</td><td>%.4g</td>"
            "<td>%s</td></tr>\n",
            r + 1, (long long)p->record_id, idx[r] + 1, t, metric(s, p),
            tsl_run_status_name(p->status));
  }
  fputs("</tbody></table>\n", out);
}

static void render_error_table(FILE *out, const report_series *s) {
  /* distinct failure kinds in order of first appearance; OK records that
   * carry no usable time are their own kind (-1 as a key) */
  typedef struct kind {
    int32_t status;
    int untimed;
    size_t count;
    const char *example;
  } kind;
  kind kinds[16];
  size_t nk = 0, other = 0;
  for (size_t i = 0; i < s->n_points; i++) {
    const report_point *p = &s->points[i];
    if (is_good(s, p))
      continue;
    int untimed = p->status == TSL_RUN_OK;
    size_t k = 0;
    while (k < nk && (kinds[k].status != p->status || kinds[k].untimed != untimed))
      k++;
    if (k == nk) {
      if (nk == sizeof kinds / sizeof kinds[0]) {
        other++;
        continue;
      }
      kinds[nk++] = (kind){p->status, untimed, 0, NULL};
    }
    kinds[k].count++;
    if (!kinds[k].example && p->error && *p->error)
      kinds[k].example = p->error;
  }
  fputs("<h3>Errors by status</h3>\n", out);
  if (nk == 0) {
    fputs("<p class=\"none\">No failed record.</p>\n", out);
    return;
  }
  fputs("<table class=\"errors\"><thead><tr><th>status</th><th>count</th>"
        "<th>first error</th></tr></thead><tbody>\n",
        out);
  for (size_t k = 0; k < nk; k++) {
    fputs("<tr><td>", out);
    if (kinds[k].untimed)
      fputs("ok, not timed", out);
    else if (kinds[k].status >= TSL_RUN_OK && kinds[k].status <= TSL_RUN_STOPPED)
      esc(out, tsl_run_status_name(kinds[k].status));
    else
      fprintf(out, "unknown (%d)", (int)kinds[k].status);
    fprintf(out, "</td><td>%zu</td><td class=\"msg\">", kinds[k].count);
    esc_n(out, kinds[k].example, ERROR_TEXT_MAX);
    fputs("</td></tr>\n", out);
  }
  if (other)
    fprintf(out, "<tr><td>other statuses</td><td>%zu</td><td></td></tr>\n", other);
  fputs("</tbody></table>\n", out);
}

/* ---- the page -------------------------------------------------------------------- */

static const char css[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;"
    "max-width:980px;color:#222;padding:0 16px}\n"
    "h1{font-size:1.6em;margin-bottom:4px}h2{margin-top:40px;border-bottom:1px solid #ccc;"
    "padding-bottom:4px}\n"
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;"
    "padding:3px 10px;text-align:right}th{background:#f3f3f3}\n"
    "table.meta td,table.meta th{text-align:left}table.errors th:last-child{text-align:left}td.msg{text-align:left;"
    "font-family:monospace;white-space:pre-wrap;max-width:560px}\n"
    "code{word-break:break-all}.summary{color:#444}.none{color:#777}\n"
    "svg.chart{background:#fff;border:1px solid #ddd;font-size:12px}\n"
    "svg .grid{stroke:#eee}svg .axis,svg .tick{stroke:#555}\n"
    "svg .label{font-size:13px;fill:#333}\n"
    "svg .pt{fill:#4878cf;fill-opacity:0.55;stroke:none}\n"
    "svg .best{fill:none;stroke:#e8710a;stroke-width:2}\n"
    "svg .err{stroke:#d62728;stroke-width:2;fill:none}\n";

static void render_series(FILE *out, const report_series *s, size_t k) {
  size_t good = 0, bi = 0, stopped = 0;
  for (size_t i = 0; i < s->n_points; i++) {
    stopped += s->points[i].status == TSL_RUN_STOPPED;
    if (!is_good(s, &s->points[i]))
      continue;
    if (!good || metric(s, &s->points[i]) > metric(s, &s->points[bi]))
      bi = i;
    good++;
  }
  fprintf(out, "<section id=\"s%zu\">\n<h2>", k + 1);
  esc(out, s->workload && *s->workload ? s->workload : "(unnamed)");
  fprintf(out, " <small>(workload %lld) on <code>", (long long)s->workload_id);
  esc(out, s->target && *s->target ? s->target : "(no target)");
  fputs("</code></small></h2>\n<p class=\"summary\">", out);
  if (s->flops > 0)
    fprintf(out, "%.6g FLOP per call; ", s->flops);
  else
    fputs("FLOP count unknown (charts show calls per second); ", out);
  fprintf(out, "%zu trial%s, %zu ok, ", s->n_points, s->n_points == 1 ? "" : "s", good);
  if (stopped)
    fprintf(out, "%zu stopped (slower than runner.skip_slower times the best), ", stopped);
  fprintf(out, "%zu failed. ", s->n_points - good - stopped);
  if (good) {
    char t[48];
    fmt_time(t, sizeof t, s->points[bi].latency_s);
    fprintf(out,
            "Best: <b><span class=\"best-value\">%.4g</span> %s</b> (%s) at trial %zu, "
            "record %lld.",
            metric(s, &s->points[bi]), metric_name(s), t, bi + 1,
            (long long)s->points[bi].record_id);
    if (s->remeasured_rounds) {
      char t[48], lo[48], hi[48];
      fmt_time(t, sizeof t, s->remeasured_s);
      fmt_time(lo, sizeof lo, s->remeasured_min_s);
      fmt_time(hi, sizeof hi, s->remeasured_max_s);
      fprintf(out,
              " Re-measured at the end of the run (median of %u rounds in a fresh worker): "
              "<b><span class=\"remeasured-value\">%s</span></b> (%s to %s), record %lld.",
              s->remeasured_rounds, t, lo, hi, (long long)s->remeasured_record);
    }
  } else {
    fputs("No successful measurement yet.", out);
  }
  fputs("</p>\n", out);
  render_chart(out, s);
  render_best_table(out, s);
  render_error_table(out, s);
  fputs("</section>\n", out);
}

int report_render(FILE *out, const report_data *d) {
  const char *title = d->title && *d->title ? d->title : "tessel tuning report";
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
        "<title>",
        out);
  esc(out, title);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
  esc(out, title);
  fputs("</h1>\n<table class=\"meta\"><tbody>\n<tr><th>database</th><td><code>", out);
  esc(out, d->db_path ? d->db_path : "");
  fprintf(out,
          "</code></td></tr>\n<tr><th>records</th><td>%lld</td></tr>\n"
          "<tr><th>workloads</th><td>%lld</td></tr>\n<tr><th>errors</th><td>%lld</td></tr>\n"
          "<tr><th>targets</th><td>%lld</td></tr>\n",
          (long long)d->records, (long long)d->workloads, (long long)d->errors,
          (long long)d->targets);
  if (d->filter) {
    fputs("<tr><th>shown</th><td>", out);
    esc(out, d->filter);
    fputs("</td></tr>\n", out);
  }
  fputs("</tbody></table>\n", out);
  if (d->n_series == 0)
    fputs("<p class=\"none\">No records to show.</p>\n", out);
  if (d->n_series > 1) {
    fputs("<ul class=\"toc\">\n", out);
    for (size_t k = 0; k < d->n_series; k++) {
      const report_series *s = &d->series[k];
      fprintf(out, "<li><a href=\"#s%zu\">", k + 1);
      esc(out, s->workload && *s->workload ? s->workload : "(unnamed)");
      fputs(" on ", out);
      esc(out, s->target ? s->target : "");
      fprintf(out, "</a> (%zu trial%s)</li>\n", s->n_points, s->n_points == 1 ? "" : "s");
    }
    fputs("</ul>\n", out);
  }
  for (size_t k = 0; k < d->n_series; k++)
    render_series(out, &d->series[k], k);
  fputs("<p class=\"none\">Generated by tessel report. Best so far: the highest value "
        "among the records up to each trial; failed records are marked on the x "
        "axis.</p>\n</body>\n</html>\n",
        out);
  return ferror(out) ? -1 : 0;
}
