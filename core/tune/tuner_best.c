/*
 * The end of a tuning run: the best record's trace as a schedule script
 * with its decisions, the program it gives, and the exported library.
 */
#include "tuner_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tune_take_best(void *user_data, const tsl_db_record *rec) {
  tune_best_rec *b = user_data;
  b->trace_json = strdup(rec->trace_json);
  b->latency_s = rec->latency_s;
  b->id = rec->id;
  return 0;
}

int tune_best(tuner_best_ctx *b) {
  tune_best_rec br = {NULL, -1, -1};
  tsl_diag d = {0};
  /* the lowest re-measured median when records were measured again
   * (remeasure.c), else the in-run fastest */
  tsl_db_remeasured rm;
  int rc = tsl_db_best_remeasured(b->db, b->wid, b->target_desc, tune_take_best, &br, &rm, &d);
  if (!rc) {
    b->out->remeasured_s = rm.median_s;
    b->out->remeasured_min_s = rm.min_s;
    b->out->remeasured_max_s = rm.max_s;
    b->out->remeasured_rounds = rm.rounds;
  } else if (rc == TSL_ENOTFOUND) {
    rc = tsl_db_best(b->db, b->wid, b->target_desc, tune_take_best, &br, &d);
  }
  if (rc == TSL_ENOTFOUND)
    return TSL_OK; /* no successful candidate: nothing to report */
  if (rc)
    return tsl_diag_set(b->diag, rc, "%s", d.text);
  tsl_tune_result *out = b->out;
  out->best_seconds = br.latency_s;
  out->best_record = br.id;
  out->best_gflops = br.latency_s > 0 && out->flops > 0 ? out->flops / br.latency_s * 1e-9 : 0;
  tsl_trace *t = NULL;
  tsl_schedule *sch = NULL;
  rc = tsl_trace_from_json(b->ctx, br.trace_json, &t, &d);
  free(br.trace_json);
  if (rc)
    return tsl_diag_set(b->diag, rc, "%s: record %lld (the best): its trace: %s",
                        tsl_db_path(b->db), (long long)br.id, d.text);
  out->best_trace = tsl_trace_to_script(t, 1);
  tsl_replay_opts ro = {sizeof ro, 0, 0, b->func_name, b->intrins};
  rc = tsl_trace_replay(b->ctx, t, b->mod, &ro, &sch, &d);
  tsl_trace_free(t);
  if (rc)
    return tsl_diag_set(b->diag, rc, "%s: record %lld (the best): replaying its trace: %s",
                        tsl_db_path(b->db), (long long)br.id, d.text);
  out->best_program = tsl_print_module(tsl_schedule_module(sch));
  if (b->cfg->export_path) {
    /* the folder was made and checked at setup (tune_check_export) */
    const tsl_lowered_module *lm = NULL;
    const tsl_module *split = NULL;
    rc = tsl_module_split_prepack(b->arena, tsl_schedule_module(sch), &split, &d);
    if (!rc)
      rc = tsl_lower_module(b->arena, split, NULL, &lm, &d);
    if (!rc)
      rc = b->tvt->export_library(b->target, lm, b->cfg->export_prefix,
                                  b->cfg->export_path, b->cfg->export_header, &d);
    if (rc) {
      const char *w = tsl_run_config_where(b->cfg, "export");
      tsl_diag_set(b->diag, rc, "%s: error: export: %s", w ? w : b->cfg->path, d.text);
    } else {
      out->export_path = strdup(b->cfg->export_path);
    }
  }
  tsl_schedule_free(sch);
  return rc;
}
