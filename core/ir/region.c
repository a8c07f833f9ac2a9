/* STUB: replaced by the parser component. */
#include "tessel/analysis.h"
int tsl_block_infer_regions(tsl_arena *arena, const tsl_block *block, tsl_buffer_region **reads, uint32_t *n_reads, tsl_buffer_region **writes, uint32_t *n_writes, tsl_diag *diag) { (void)arena; (void)block; *reads = *writes = NULL; *n_reads = *n_writes = 0; return tsl_diag_set(diag, TSL_EUNSUPPORTED, "region inference not implemented"); }
