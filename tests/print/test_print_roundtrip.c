/*
 * Printer round trips: every module of cases.h is printed, parsed back,
 * compared with the original (tsl_module_equal) and printed again; the
 * second text must equal the first (idempotence).
 */
#include "cases.h"
#include "tap.h"
#include "tessel/analysis.h"
#include "tessel/script.h"

#include <stdlib.h>

static void roundtrip(tsl_arena *a, const char *name, const tsl_module *m) {
  char *text = tsl_print_module(m);
  const tsl_module *back = NULL;
  tsl_diag diag = {0};
  int rc = tsl_parse(a, name, text, strlen(text), &back, &diag);
  if (!ok(rc == TSL_OK && back, "%s: printed text parses", name)) {
    tap_diag("%s\n%s", diag.text, text);
    tap_skip("did not parse", "equal");
    tap_skip("did not parse", "idempotent");
    free(text);
    return;
  }
  char why[1024] = "";
  if (!ok(tsl_module_equal(m, back, why, sizeof why) == 1,
          "%s: parse(print(m)) is structurally equal to m", name))
    tap_diag("%s", why);
  char *again = tsl_print_module(back);
  is_str(again, text, "%s: print(parse(print(m))) == print(m)", name);
  free(again);
  free(text);
}

int main(void) {
  tsl_ctx *ctx = tsl_ctx_new();
  tsl_arena *a = tsl_arena_new(ctx);
  for (size_t i = 0; i < sizeof print_cases / sizeof print_cases[0]; i++)
    roundtrip(a, print_cases[i].name, print_cases[i].build(a));
  tsl_arena_free(a);
  tsl_ctx_free(ctx);
  return tap_done();
}
