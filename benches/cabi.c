/* The C ABI's side of the C ABI bench (benches/cabi.sh): one exported function on
 * fresh 64 KiB pieces of a file, timed in thread CPU time, as benches corebench
 * times core: `cabi OP FILE SECONDS` prints GB/s. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "airlock.h"

#define PIECE (64u << 10)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: cabi sanitize|strip|fence FILE SECONDS\n");
    return 2;
  }
  const char *op = argv[1];
  FILE *f = fopen(argv[2], "rb");
  if (!f) { perror(argv[2]); return 2; }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *bytes = malloc((size_t)size);
  if (!bytes || fread(bytes, 1, (size_t)size, f) != (size_t)size) { return 2; }
  fclose(f);
  double secs = atof(argv[3]);
  size_t cap = airlock_worst_case_len(PIECE, PIECE);
  uint8_t *out = malloc(cap);
  uint8_t msg[512];
  size_t done = 0, at = 0, sink = 0;
  double start = now();
  while (now() - start < secs) {
    for (int i = 0; i < 16; i++) {
      if (at + PIECE > (size_t)size) at = 0;
      size_t end = at + PIECE;
      while (end > at && (bytes[end] & 0xC0) == 0x80) end--;
      size_t len = end - at, out_len = 0, msg_len = 0, err = 0;
      airlock_status s;
      if (strcmp(op, "sanitize") == 0) {
        s = airlock_sanitize_prose(bytes + at, len, (const uint8_t *)"insight", 7, PIECE, out,
                                   cap, &out_len, msg, sizeof msg, &msg_len, &err);
      } else if (strcmp(op, "strip") == 0) {
        s = airlock_strip(bytes + at, len, out, cap, &out_len, &err);
      } else if (strcmp(op, "fence") == 0) {
        s = airlock_fence_token(bytes + at, len, out, cap, &out_len, &err);
      } else {
        fprintf(stderr, "unknown op %s\n", op);
        return 2;
      }
      if (s != AIRLOCK_STATUS_OK && s != AIRLOCK_STATUS_REJECTED) { fprintf(stderr, "status %u\n", (unsigned)s); return 1; }
      sink += out_len;
      done += len;
      at = end;
    }
  }
  printf("%.3f\n", (double)done / (now() - start) / 1e9);
  free(out);
  free(bytes);
  return sink == 0 ? 3 : 0;
}
