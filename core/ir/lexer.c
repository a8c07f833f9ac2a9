/* STUB: replaced by the parser component. */
