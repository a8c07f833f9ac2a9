/* Side-by-side timing in two block-serving processes. */
#define _XOPEN_SOURCE 700
#include "side_by_side.h"
#include "../bench_util.h"

#include <dlfcn.h>
#include <stdint.h>
#include <sys/wait.h>

typedef struct server {
  pid_t pid;
  int req, res; /* the parent's ends */
} server;

/* In the child: a block of calls per request, its calls per second back
 * (0 once the side failed). */
static void serve(const bench_side *side, int req, int res) {
  void *state = side->open(side->arg);
  char go;
  while (read(req, &go, 1) == 1) {
    int calls = -1, ok = state != NULL; /* the first call is untimed */
    double t0 = 0, t = 0, rate = 0;
    while (ok && (calls < 1 || (t = bench_now() - t0) < 0.2)) {
      if (side->call(state))
        ok = 0, state = NULL;
      if (++calls == 0)
        t0 = bench_now();
    }
    if (ok)
      rate = calls / t;
    if (write(res, &rate, sizeof rate) != sizeof rate)
      break;
  }
  _exit(0);
}

static int server_start(server *s, const bench_side *side) {
  int rq[2], rs[2];
  if (pipe(rq))
    return -1;
  if (pipe(rs)) {
    close(rq[0]);
    close(rq[1]);
    return -1;
  }
  fflush(NULL);
  s->pid = fork();
  if (s->pid == 0) {
    close(rq[1]);
    close(rs[0]);
    serve(side, rq[0], rs[1]);
  }
  close(rq[0]);
  close(rs[1]);
  s->req = rq[1];
  s->res = rs[0];
  if (s->pid < 0) {
    close(s->req);
    close(s->res);
    return -1;
  }
  return 0;
}

static double server_block(server *s, int pause) {
  if (pause)
    nanosleep(&(struct timespec){0, 300000000}, NULL);
  char go = 1;
  double rate = 0;
  if (write(s->req, &go, 1) != 1 || read(s->res, &rate, sizeof rate) != sizeof rate)
    return 0;
  return rate;
}

static void server_stop(server *s) {
  close(s->req);
  close(s->res);
  waitpid(s->pid, NULL, 0);
}

int bench_side_by_side(const bench_side *a, const bench_side *b, double *rate_a,
                       double *rate_b) {
  server sa, sb;
  if (server_start(&sa, a))
    return -1;
  if (server_start(&sb, b)) {
    server_stop(&sa);
    return -1;
  }
  double as[7], bs[7];
  int rc = 0;
  for (int r = -3; r < 7 && !rc; r++) {
    double x = server_block(&sa, 1), y = server_block(&sb, 1);
    if (x <= 0 || y <= 0)
      rc = -1;
    else if (r >= 0)
      as[r] = x, bs[r] = y;
  }
  server_stop(&sb); /* first: sb holds a copy of sa's request pipe */
  server_stop(&sa);
  if (rc)
    return -1;
  *rate_a = bench_median(as, 7);
  *rate_b = bench_median(bs, 7);
  return 0;
}

int bench_side_alone(const bench_side *side, int repeats, double *rate) {
  server s;
  if (repeats < 1 || repeats > 64 || server_start(&s, side))
    return -1;
  double r[64];
  int rc = 0;
  for (int i = 0; i < repeats && !rc; i++)
    if ((r[i] = server_block(&s, 0)) <= 0)
      rc = -1;
  server_stop(&s);
  if (!rc)
    *rate = bench_median(r, repeats);
  return rc;
}

/* ---- the exported best kernel ------------------------------------------------------- */

typedef struct kernel_state {
  int32_t (*fn)(void *const *);
  void *args[BENCH_MAX_BUFS];
} kernel_state;

void bench_fill_buffer(void *p, size_t bytes, bench_fill f) {
  size_t n = f == FILL_F32 ? bytes / 4 : f == FILL_BF16 ? bytes / 2 : bytes;
  for (size_t i = 0; i < n; i++) {
    int v = (int)(i * 7 % 13);
    float x = (float)(v - 6) * 0.125f;
    uint32_t bits;
    memcpy(&bits, &x, 4);
    switch (f) {
    case FILL_ZERO: ((uint8_t *)p)[i] = 0; break;
    case FILL_F32: ((float *)p)[i] = x; break;
    case FILL_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case FILL_S8: ((int8_t *)p)[i] = (int8_t)(v - 6); break;
    case FILL_BF16: ((uint16_t *)p)[i] = (uint16_t)(bits >> 16); break;
    }
  }
}

void *bench_kernel_open(const void *arg) {
  const bench_kernel *k = arg;
  char so[4200], sym[256];
  snprintf(so, sizeof so, "%s/libbest.so", k->dir);
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "bench_auto: %s\n", dlerror());
    return NULL;
  }
  kernel_state *s = calloc(1, sizeof *s);
  void *bufs[BENCH_MAX_BUFS] = {0};
  int ok = s != NULL;
  snprintf(sym, sizeof sym, "best_%s_packed", k->func);
  if (ok)
    s->fn = (int32_t(*)(void *const *))dlsym(h, sym);
  int32_t (*pre)(void *const *) = NULL;
  if (k->prepack) {
    snprintf(sym, sizeof sym, "best_%s_prepack_packed", k->func);
    pre = (int32_t(*)(void *const *))dlsym(h, sym);
  }
  ok = ok && s->fn && (!k->prepack || pre);
  for (int i = 0; ok && i < k->n_bufs; i++) {
    bufs[i] = aligned_alloc(64, (k->bytes[i] + 63) / 64 * 64);
    if (bufs[i])
      bench_fill_buffer(bufs[i], k->bytes[i], k->fill[i]);
    ok = bufs[i] != NULL;
  }
  if (ok && pre) {
    void *pa[BENCH_MAX_BUFS];
    for (int i = 0; i < k->n_pre; i++)
      pa[i] = bufs[k->pre[i]];
    ok = pre(pa) == 0;
  }
  for (int i = 0; ok && i < k->n_call; i++)
    s->args[i] = bufs[k->call[i]];
  if (!ok) {
    fprintf(stderr, "bench_auto: cannot call %s's %s\n", so, sym);
    free(s);
    return NULL; /* the buffers stay: the process ends with the side */
  }
  return s;
}

int bench_kernel_call(void *state) {
  kernel_state *s = state;
  return s->fn(s->args) ? -1 : 0;
}
