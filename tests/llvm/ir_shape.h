/*
 * tests/llvm/ir_shape.h — what a test may assert about generated LLVM IR,
 * read through the LLVM C API from the module's structure, never from its
 * printed text (where "phi" is also a substring of
 * "target-cpu"="sapphirerapids"):
 *  - instructions of one opcode;
 *  - loops: the headers of the CFG's cycles (targets of back edges of a
 *    depth-first search from the entry block);
 *  - loop metadata: latches with an !llvm.loop node, one holding a property
 *    ("llvm.loop.unroll.full"), or a property with a given value;
 *  - the widest vector of float results, and string function attributes.
 * Each query takes the function (LLVMGetNamedFunction) and returns -1 (or
 * NULL) when it is NULL.
 */
#ifndef TESSEL_TESTS_IR_SHAPE_H
#define TESSEL_TESTS_IR_SHAPE_H

#include <llvm-c/Core.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int irs_count_opcode(LLVMValueRef fn, LLVMOpcode op) {
  if (!fn)
    return -1;
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      n += LLVMGetInstructionOpcode(i) == op;
  return n;
}

static inline int irs_block_index_(LLVMBasicBlockRef *bbs, int n, LLVMBasicBlockRef bb) {
  for (int i = 0; i < n; i++)
    if (bbs[i] == bb)
      return i;
  return -1;
}

/* Loops: the blocks a back edge (an edge to a block on the stack of a
 * depth-first search from the entry block) enters. */
static inline int irs_loops(LLVMValueRef fn) {
  if (!fn || !LLVMCountBasicBlocks(fn))
    return fn ? 0 : -1;
  int n = (int)LLVMCountBasicBlocks(fn), headers = 0;
  LLVMBasicBlockRef *bbs = malloc(sizeof *bbs * (size_t)n);
  LLVMGetBasicBlocks(fn, bbs);
  /* state: 0 unvisited, 1 on the stack, 2 done; an explicit stack of
   * blocks, each with the index of its next successor */
  char *state = calloc((size_t)n, 1), *header = calloc((size_t)n, 1);
  int *stack = malloc(sizeof *stack * (size_t)n), *next = calloc((size_t)n, sizeof *next);
  int top = 0;
  stack[top++] = 0;
  state[0] = 1;
  while (top) {
    int b = stack[top - 1];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bbs[b]);
    int ns = t ? (int)LLVMGetNumSuccessors(t) : 0;
    if (next[b] < ns) {
      int s = irs_block_index_(bbs, n, LLVMGetSuccessor(t, (unsigned)next[b]++));
      if (s >= 0 && state[s] == 1) {
        headers += !header[s];
        header[s] = 1;
      } else if (s >= 0 && state[s] == 0) {
        state[s] = 1;
        stack[top++] = s;
      }
    } else {
      state[b] = 2;
      top--;
    }
  }
  free(bbs);
  free(state);
  free(header);
  free(stack);
  free(next);
  return headers;
}

static inline int irs_md_string_is_(LLVMValueRef v, const char *s) {
  unsigned len = 0;
  const char *got = v ? LLVMGetMDString(v, &len) : NULL;
  return got && strlen(s) == len && !strncmp(got, s, len);
}

/* Latches whose !llvm.loop node has the property `name` (NULL: any
 * !llvm.loop node); `value` -1: any value, else the property's integer or
 * boolean operand must equal it. The node's operand 0 is the node itself,
 * the others are properties !{!"name", value...}. */
static inline int irs_loop_md(LLVMValueRef fn, const char *name, int value) {
  if (!fn)
    return -1;
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
  unsigned kind = LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
  int found = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    LLVMValueRef md = t ? LLVMGetMetadata(t, kind) : NULL;
    if (!md || !name) {
      found += md != NULL;
      continue;
    }
    unsigned n = LLVMGetMDNodeNumOperands(md);
    LLVMValueRef *ops = malloc(sizeof *ops * (n ? n : 1));
    LLVMGetMDNodeOperands(md, ops);
    int hit = 0;
    for (unsigned i = 1; i < n && !hit; i++) {
      unsigned m = ops[i] && LLVMIsAMDNode(ops[i]) ? LLVMGetMDNodeNumOperands(ops[i]) : 0;
      if (!m)
        continue;
      LLVMValueRef *prop = malloc(sizeof *prop * m);
      LLVMGetMDNodeOperands(ops[i], prop);
      if (irs_md_string_is_(prop[0], name))
        hit = value < 0 || (m > 1 && prop[1] && LLVMIsAConstantInt(prop[1]) &&
                            LLVMConstIntGetZExtValue(prop[1]) == (unsigned long long)value);
      free(prop);
    }
    free(ops);
    found += hit;
  }
  return found;
}

/* The most lanes of any vector-of-float instruction result (0: none). */
static inline int irs_widest_float_vector(LLVMValueRef fn) {
  if (!fn)
    return -1;
  unsigned widest = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      LLVMTypeRef t = LLVMTypeOf(i);
      if (LLVMGetTypeKind(t) == LLVMVectorTypeKind &&
          LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMFloatTypeKind &&
          LLVMGetVectorSize(t) > widest)
        widest = LLVMGetVectorSize(t);
    }
  return (int)widest;
}

/* A string attribute of the function ("target-cpu"), malloc'd, or NULL. */
static inline char *irs_fn_attr(LLVMValueRef fn, const char *key) {
  if (!fn)
    return NULL;
  LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
  if (!a)
    return NULL;
  unsigned len = 0;
  const char *v = LLVMGetStringAttributeValue(a, &len);
  char *s = malloc(len + 1);
  memcpy(s, v, len);
  s[len] = '\0';
  return s;
}

#endif /* TESSEL_TESTS_IR_SHAPE_H */
