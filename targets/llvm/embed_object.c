/*
 * targets/llvm/embed_object.c — a build tool: `embed_object IN OUT` writes
 * the bytes of the file IN as the C array tll_pool_object (and its size,
 * tll_pool_object_size) into OUT. The plugin carries the thread pool's
 * object file this way and links it into exported libraries (link.c).
 */
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: embed_object IN OUT\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "rb");
  FILE *out = in ? fopen(argv[2], "w") : NULL;
  if (!in || !out) {
    perror(in ? argv[2] : argv[1]);
    return 1;
  }
  fprintf(out, "/* %s, embedded by embed_object.c */\n#include <stddef.h>\n\n"
               "const unsigned char tll_pool_object[] = {",
          argv[1]);
  int c;
  unsigned long n = 0;
  while ((c = getc(in)) != EOF)
    fprintf(out, "%s%u,", n++ % 16 ? "" : "\n  ", (unsigned)c);
  fprintf(out, "\n};\nconst size_t tll_pool_object_size = %lu;\n", n);
  int bad = ferror(in) || fclose(out) != 0;
  fclose(in);
  if (bad)
    fprintf(stderr, "embed_object: cannot copy %s to %s\n", argv[1], argv[2]);
  return bad;
}
