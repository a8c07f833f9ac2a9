/* STUB */ typedef int tsl_unused_cmd_eval;
