/*
 * core/schedule/decisions_key.c — tsl_trace_decisions_key: the decisions of
 * a trace as compact JSON, the identity of a point of a design space.
 */
#include "tessel/search.h"

#include <jansson.h>
#include <stdlib.h>

char *tsl_trace_decisions_key(const tsl_trace *t) {
  char *text = tsl_trace_to_json(t);
  if (!text)
    return NULL;
  json_error_t err;
  json_t *root = json_loads(text, 0, &err);
  free(text);
  json_t *dec = root ? json_object_get(root, "decisions") : NULL;
  char *key = dec ? json_dumps(dec, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
  json_decref(root);
  return key;
}
