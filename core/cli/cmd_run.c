/* tessel run (placeholder until it lands). */
#include "cli.h"

const char cli_run_usage[] = "usage: tessel run ... (not implemented yet)\n";

int cli_run(int argc, char **argv) {
  (void)argc; (void)argv;
  return cli_error("run", "not implemented yet");
}
