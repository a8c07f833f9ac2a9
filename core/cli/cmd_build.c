/* tessel build (placeholder until it lands). */
#include "cli.h"

const char cli_build_usage[] = "usage: tessel build ... (not implemented yet)\n";

int cli_build(int argc, char **argv) {
  (void)argc; (void)argv;
  return cli_error("build", "not implemented yet");
}
