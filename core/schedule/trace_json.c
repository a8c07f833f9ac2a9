/*
 * Traces as JSON (jansson): one object per instruction with its inputs,
 * attributes and outputs, and the decisions listed separately. Lambdas are
 * their printed text, where a sampled value's variable reads as the RV's
 * name (`v3`): reading one back, `v<N>` is that RV when an earlier
 * instruction made it (older traces hold numbers there, read as before).
 */
#include "sch_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *sch_value_json(const tsl_sch_value *v, const tsl_trace *t) {
  char buf[32];
  switch (v->kind) {
  case TSL_SV_INT: return json_integer(v->u.i);
  case TSL_SV_FLOAT: return json_real(v->u.f);
  case TSL_SV_STR: return json_pack("{s:s}", "str", v->u.s);
  case TSL_SV_BOOL: return json_boolean(v->u.i);
  case TSL_SV_RV:
    snprintf(buf, sizeof buf, "%c%u",
             sch_rv_prefix((uint32_t)tsl_trace_rv_kind(t, v->u.rv)),
             v->u.rv);
    return json_string(buf);
  case TSL_SV_LIST:
  case TSL_SV_TUPLE: {
    json_t *a = json_array();
    for (uint32_t i = 0; i < v->n; i++)
      json_array_append_new(a, sch_value_json(&v->u.items[i], t));
    return v->kind == TSL_SV_LIST ? a : json_pack("{s:o}", "tuple", a);
  }
  case TSL_SV_DICT: {
    json_t *a = json_array();
    for (uint32_t i = 0; i + 1 < v->n; i += 2)
      json_array_append_new(a, json_pack("[s,o]", v->u.items[i].u.s,
                                         sch_value_json(&v->u.items[i + 1], t)));
    return json_pack("{s:o}", "dict", a);
  }
  case TSL_SV_EXPR:
  case TSL_SV_LAMBDA: {
    tsl_strbuf sb;
    tsl_strbuf_init(&sb);
    sch_value_print(&sb, v, t->rv_kinds.data, t->rv_kinds.len);
    json_t *o = json_pack("{s:s}", v->kind == TSL_SV_EXPR ? "expr" : "lambda",
                          sb.data ? sb.data : "");
    tsl_strbuf_free(&sb);
    return o;
  }
  default: return json_null();
  }
}

char *tsl_trace_to_json(const tsl_trace *t) {
  json_t *insts = json_array(), *decisions = json_array();
  for (uint32_t i = 0; i < t->insts.len; i++) {
    const tsl_trace_inst *in = sch_trace_inst(t, i);
    json_t *inputs = json_array(), *attrs = json_array(), *outs = json_array();
    for (uint32_t p = 0; p < in->kind->n_params; p++) {
      const tsl_sch_param *par = &in->kind->params[p];
      if (par->type == TSL_SP_DECISION)
        continue;
      json_array_append_new((par->flags & TSL_SPF_ATTR) ? attrs : inputs,
                            sch_value_json(&in->args[p], t));
    }
    for (uint32_t j = 0; j < in->n_outs; j++) {
      tsl_sch_value rv = tsl_sv_rv(in->outs[j]);
      json_array_append_new(outs, sch_value_json(&rv, t));
    }
    json_array_append_new(insts, json_pack("{s:s,s:o,s:o,s:o}", "kind",
                                           in->kind->name, "inputs", inputs,
                                           "attrs", attrs, "outputs", outs));
    if (in->kind->is_sample && in->decision.kind != TSL_SV_NONE)
      json_array_append_new(decisions,
                            json_pack("[I,o]", (json_int_t)i,
                                      sch_value_json(&in->decision, t)));
  }
  json_t *root = json_pack("{s:o,s:o}", "insts", insts, "decisions", decisions);
  char *s = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17));
  json_decref(root);
  return s;
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct jctx {
  tsl_trace *t;
  uint32_t inst;
  const char *field;
  tsl_diag *diag;
} jctx;

static int jfail(jctx *j, const char *fmt, const char *what) {
  char msg[512];
  snprintf(msg, sizeof msg, fmt, what);
  return tsl_diag_set(j->diag, TSL_EPARSE, "trace JSON: instruction %u, %s: %s",
                      j->inst, j->field, msg);
}

static int parse_rv_name(const char *s, uint32_t *kind, uint32_t *num) {
  if (!s[0] || !strchr("blv", s[0]) || !s[1])
    return 0;
  char *end;
  unsigned long n = strtoul(s + 1, &end, 10);
  if (*end || n > 100000000ul || s[1] == '-' || s[1] == '+')
    return 0;
  *kind = s[0] == 'b' ? TSL_RV_BLOCK : s[0] == 'l' ? TSL_RV_LOOP : TSL_RV_EXPR;
  *num = (uint32_t)n;
  return 1;
}

/* In a lambda, `v<N>` names sampled value N when an earlier instruction
 * made it: a variable of that name, as the trace records it. */
static int lookup_rv(void *ud, const char *name, size_t len, int64_t *value,
                     const tsl_var **var) {
  jctx *j = ud;
  char buf[32];
  uint32_t kind, num;
  if (len >= sizeof buf)
    return 0;
  memcpy(buf, name, len);
  buf[len] = 0;
  if (!parse_rv_name(buf, &kind, &num) || kind != TSL_RV_EXPR ||
      tsl_trace_rv_kind(j->t, num) != TSL_RV_EXPR)
    return 0;
  *value = 0;
  snprintf(buf, sizeof buf, "v%u", num); /* the name it prints as */
  *var = tsl_var_new(j->t->arena, buf, TSL_INT32);
  return 1;
}

static int json_value(jctx *j, json_t *x, tsl_sch_value *out, int depth) {
  if (depth > 8)
    return jfail(j, "%s", "values nest too deeply");
  if (json_is_null(x)) {
    *out = tsl_sv_none();
  } else if (json_is_boolean(x)) {
    *out = tsl_sv_bool(json_is_true(x));
  } else if (json_is_integer(x)) {
    *out = tsl_sv_int(json_integer_value(x));
  } else if (json_is_real(x)) {
    *out = tsl_sv_float(json_real_value(x));
  } else if (json_is_string(x)) {
    uint32_t kind, num;
    if (!parse_rv_name(json_string_value(x), &kind, &num))
      return jfail(j, "'%s' is not a handle like b0, l1 or v2 (strings are "
                      "written {\"str\": ...})",
                   json_string_value(x));
    if (tsl_trace_rv_kind(j->t, num) != (int)kind)
      return jfail(j, "handle '%s' is not an output of an earlier instruction",
                   json_string_value(x));
    *out = tsl_sv_rv(num);
  } else if (json_is_object(x)) {
    const char *key = json_object_size(x) == 1 ? json_object_iter_key(json_object_iter(x)) : "";
    json_t *s = json_object_get(x, key);
    if (!strcmp(key, "str") && json_is_string(s)) {
      *out = tsl_sv_str(tsl_intern(j->t->ctx, json_string_value(s)));
    } else if ((!strcmp(key, "expr") || !strcmp(key, "lambda")) && json_is_string(s)) {
      tsl_diag d;
      const char *txt = json_string_value(s);
      sch_name_lookup lk = {lookup_rv, j};
      int rc = !strcmp(key, "expr")
                   ? sch_parse_expr_text(j->t->arena, "<json>", 1, 1, txt, strlen(txt),
                                         NULL, out, &d)
                   : sch_parse_lambda_text(j->t->arena, "<json>", 1, 1, txt,
                                           strlen(txt), &lk, out, &d);
      if (rc) {
        char *nl = strchr(d.text, '\n');
        if (nl)
          *nl = 0;
        d.text[300] = 0;
        return jfail(j, "%.300s", d.text);
      }
    } else if (!strcmp(key, "tuple") && json_is_array(s)) {
      if (json_value(j, s, out, depth + 1))
        return TSL_EPARSE;
      out->kind = TSL_SV_TUPLE;
    } else if (!strcmp(key, "dict") && json_is_array(s)) {
      size_t n = json_array_size(s);
      tsl_sch_value *items = TSL_NEW_ARRAY(j->t->arena, tsl_sch_value, 2 * n + 1);
      for (size_t i = 0; i < n; i++) {
        json_t *pair = json_array_get(s, i);
        if (!json_is_array(pair) || json_array_size(pair) != 2 ||
            !json_is_string(json_array_get(pair, 0)))
          return jfail(j, "%s", "dict entries must be [\"key\", value] pairs");
        items[2 * i] = tsl_sv_str(tsl_intern(j->t->ctx, json_string_value(json_array_get(pair, 0))));
        if (json_value(j, json_array_get(pair, 1), &items[2 * i + 1], depth + 1))
          return TSL_EPARSE;
      }
      *out = tsl_sv_dict((uint32_t)n, items);
    } else {
      return jfail(j, "%s", "an object value must be {\"str\": ...}, {\"tuple\": [...]}, "
                            "{\"dict\": [...]}, {\"expr\": \"...\"} or {\"lambda\": \"...\"}");
    }
  } else if (json_is_array(x)) {
    size_t n = json_array_size(x);
    tsl_sch_value *items = TSL_NEW_ARRAY(j->t->arena, tsl_sch_value, n + 1);
    for (size_t i = 0; i < n; i++)
      if (json_value(j, json_array_get(x, i), &items[i], depth + 1))
        return TSL_EPARSE;
    *out = tsl_sv_list((uint32_t)n, items);
  } else {
    return jfail(j, "%s", "unsupported value");
  }
  return TSL_OK;
}

static int parse_inst(jctx *j, json_t *o, const uint8_t *has_decision) {
  (void)has_decision;
  j->field = "kind";
  json_t *kind = json_object_get(o, "kind");
  if (!json_is_object(o) || !json_is_string(kind))
    return jfail(j, "%s", "each instruction must be an object with a \"kind\" string");
  const sch_inst *si = sch_inst_find(json_string_value(kind));
  if (!si)
    return jfail(j, "unknown instruction '%s'", json_string_value(kind));
  const tsl_sch_inst_kind *k = &si->pub;
  json_t *lists[2] = {json_object_get(o, "inputs"), json_object_get(o, "attrs")};
  json_t *outs = json_object_get(o, "outputs");
  if (!json_is_array(lists[0]) || !json_is_array(lists[1]) || !json_is_array(outs)) {
    j->field = "inputs/attrs/outputs";
    return jfail(j, "%s", "\"inputs\", \"attrs\" and \"outputs\" must be arrays");
  }
  tsl_sch_value *args = TSL_NEW_ARRAY(j->t->arena, tsl_sch_value, k->n_params + 1);
  size_t pos[2] = {0, 0};
  for (uint32_t p = 0; p < k->n_params; p++) {
    const tsl_sch_param *par = &k->params[p];
    if (par->type == TSL_SP_DECISION) {
      args[p] = tsl_sv_none();
      continue;
    }
    int which = (par->flags & TSL_SPF_ATTR) ? 1 : 0;
    j->field = par->name;
    json_t *x = json_array_get(lists[which], pos[which]++);
    if (!x)
      return jfail(j, "missing (%s too short)", which ? "attrs" : "inputs");
    if (json_value(j, x, &args[p], 0))
      return TSL_EPARSE;
    int none_ok = args[p].kind == TSL_SV_NONE && !(par->flags & TSL_SPF_REQUIRED);
    int ok = none_ok || sch_type_ok(par->type, &args[p]);
    if (ok && (par->flags & TSL_SPF_VARARGS))
      ok = args[p].kind == TSL_SV_LIST;
    if (ok && par->type == TSL_SP_BUFFER && args[p].kind == TSL_SV_LIST)
      args[p].kind = TSL_SV_TUPLE;
    if (!ok)
      return jfail(j, "%s", "value of the wrong type");
  }
  for (int w = 0; w < 2; w++)
    if (json_array_size(lists[w]) != pos[w]) {
      j->field = w ? "attrs" : "inputs";
      return jfail(j, "%s", "too many entries");
    }
  uint32_t n_outs = (uint32_t)json_array_size(outs);
  tsl_sch_rv *o_rvs = TSL_NEW_ARRAY(j->t->arena, tsl_sch_rv, n_outs + 1);
  uint32_t *o_kinds = TSL_NEW_ARRAY(j->t->arena, uint32_t, n_outs + 1);
  j->field = "outputs";
  for (uint32_t i = 0; i < n_outs; i++) {
    json_t *x = json_array_get(outs, i);
    uint32_t kind, num;
    if (!json_is_string(x) || !parse_rv_name(json_string_value(x), &kind, &num))
      return jfail(j, "%s", "outputs must be handle names like b0, l1, v2");
    if (kind != k->output_kind)
      return jfail(j, "'%s' has the wrong kind for this instruction",
                   json_string_value(x));
    if (tsl_trace_rv_kind(j->t, num))
      return jfail(j, "handle '%s' is defined twice", json_string_value(x));
    if (num > 10000000u)
      return jfail(j, "%s", "handle number too large");
    o_rvs[i] = num;
    o_kinds[i] = kind;
  }
  sch_trace_append(j->t, k, args, o_rvs, n_outs, o_kinds, NULL);
  return TSL_OK;
}

int tsl_trace_from_json(tsl_ctx *ctx, const char *text, tsl_trace **out,
                        tsl_diag *diag) {
  *out = NULL;
  json_error_t err;
  json_t *root = json_loads(text, 0, &err);
  if (!root)
    return tsl_diag_set(diag, TSL_EPARSE, "trace JSON:%d:%d: %s", err.line,
                        err.column, err.text);
  tsl_trace *t = malloc(sizeof *t);
  if (!t) {
    json_decref(root);
    return tsl_diag_set(diag, TSL_ENOMEM, "out of memory");
  }
  sch_trace_init(t, ctx, tsl_arena_new(ctx));
  t->owns_arena = 1;
  int rc = TSL_OK;
  json_t *insts = json_object_get(root, "insts");
  json_t *decs = json_object_get(root, "decisions");
  if (!json_is_array(insts) || (decs && !json_is_array(decs))) {
    rc = tsl_diag_set(diag, TSL_EPARSE,
                      "trace JSON: expected {\"insts\": [...], \"decisions\": [...]}");
  }
  jctx j = {t, 0, "", diag};
  for (size_t i = 0; rc == TSL_OK && i < json_array_size(insts); i++) {
    j.inst = (uint32_t)i;
    rc = parse_inst(&j, json_array_get(insts, i), NULL);
  }
  for (size_t i = 0; rc == TSL_OK && decs && i < json_array_size(decs); i++) {
    json_t *d = json_array_get(decs, i);
    j.field = "decisions";
    if (!json_is_array(d) || json_array_size(d) != 2 ||
        !json_is_integer(json_array_get(d, 0))) {
      j.inst = (uint32_t)i;
      rc = jfail(&j, "%s", "each decision must be [instruction_index, value]");
      break;
    }
    json_int_t idx = json_integer_value(json_array_get(d, 0));
    tsl_sch_value v;
    j.inst = idx >= 0 && idx < (json_int_t)t->insts.len ? (uint32_t)idx : 0;
    if ((rc = json_value(&j, json_array_get(d, 1), &v, 0)))
      break;
    if (idx < 0 || idx >= (json_int_t)t->insts.len) {
      rc = tsl_diag_set(diag, TSL_EPARSE,
                        "trace JSON: decision %zu names instruction %lld; the "
                        "trace has %u",
                        i, (long long)idx, t->insts.len);
      break;
    }
    if (tsl_trace_set_decision(t, (uint32_t)idx, &v, diag)) {
      sch_diag_prefix(diag, "trace JSON: ");
      rc = TSL_EPARSE;
    }
  }
  json_decref(root);
  if (rc) {
    tsl_trace_free(t);
    return rc;
  }
  *out = t;
  return TSL_OK;
}
