/*
 * Realistic use: read a file of agent-authored text, sanitize it as prose, and wrap
 * it in the untrusted-content envelope inside a fence that the text cannot close.
 *
 *   fence_file PATH [MAX_BYTES]
 *
 * Exit 0 and the fenced text on stdout; exit 2 and the rejection message on stderr
 * when the text forges a wrapper; exit 1 on any other failure.
 * This is the example of ffi/README.md.
 */
#include <stdio.h>
#include <stdlib.h>

#include "airlock.h"

/* Reads the whole file into a malloc'd buffer; the caller frees it. */
static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0;
    size_t n;
    *len = 0;
    if (f == NULL) return NULL;
    for (;;) {
        if (*len == cap) {
            uint8_t *grown;
            cap = cap ? cap * 2 : 4096;
            grown = realloc(buf, cap);
            if (grown == NULL) break;
            buf = grown;
        }
        n = fread(buf + *len, 1, cap - *len, f);
        *len += n;
        if (n == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    size_t max_bytes = AIRLOCK_INSIGHT_MAX_BYTES;
    size_t text_len, clean_len = 0, msg_len = 0, err_offset = 0, token_len = 0;
    uint8_t *text, *clean;
    uint8_t msg[1024];
    uint8_t token[AIRLOCK_FENCE_TOKEN_MAX_LEN];
    airlock_status st;
    int rc = 1;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s PATH [MAX_BYTES]\n", argv[0]);
        return 1;
    }
    if (argc == 3) max_bytes = (size_t)strtoul(argv[2], NULL, 10);
    text = read_file(argv[1], &text_len);
    if (text == NULL) {
        perror(argv[1]);
        return 1;
    }

    /* A buffer of the worst-case size never gives BUFFER_TOO_SMALL. */
    clean = malloc(airlock_worst_case_len(text_len, max_bytes) + 1);
    if (clean == NULL) goto out_text;

    st = airlock_sanitize_prose(text, text_len, (const uint8_t *)"insight", 7, max_bytes,
                                clean, airlock_worst_case_len(text_len, max_bytes), &clean_len,
                                msg, sizeof msg, &msg_len, &err_offset);
    if (st == AIRLOCK_STATUS_REJECTED) {
        /* The record is rejected; msg holds the exact reason when it fits. */
        if (msg_len <= sizeof msg) fprintf(stderr, "%.*s\n", (int)msg_len, (const char *)msg);
        rc = 2;
        goto out_clean;
    }
    if (st == AIRLOCK_STATUS_INVALID_UTF8) {
        fprintf(stderr, "not UTF-8 at byte %lu\n", (unsigned long)err_offset);
        goto out_clean;
    }
    if (st != AIRLOCK_STATUS_OK) {
        fprintf(stderr, "sanitize: %s\n", airlock_status_name(st));
        goto out_clean;
    }

    /* The fence token is derived from the payload and never occurs in it. */
    st = airlock_fence_token(clean, clean_len, token, sizeof token, &token_len, NULL);
    if (st != AIRLOCK_STATUS_OK) {
        fprintf(stderr, "fence: %s\n", airlock_status_name(st));
        goto out_clean;
    }

    printf("%s\n", airlock_envelope_begin());
    printf("<learning-%.*s>\n", (int)token_len, (const char *)token);
    printf("%.*s\n", (int)clean_len, (const char *)clean);
    printf("</learning-%.*s>\n", (int)token_len, (const char *)token);
    printf("%s\n", airlock_envelope_end());
    rc = 0;

out_clean:
    free(clean);
out_text:
    free(text);
    return rc;
}
