/* Test plugin: a shared object without the tessel_plugin_init entry (a
 * misspelt one is exported instead). */
#include "tessel/plugin.h"

__attribute__((visibility("default"))) int tessel_plugin_init_(void) {
  return 0;
}
