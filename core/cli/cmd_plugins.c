/* tessel plugins (placeholder until it lands). */
#include "cli.h"

const char cli_plugins_usage[] = "usage: tessel plugins ... (not implemented yet)\n";

int cli_plugins(int argc, char **argv) {
  (void)argc; (void)argv;
  return cli_error("plugins", "not implemented yet");
}
