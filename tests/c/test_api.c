/*
 * The C ABI as a C caller sees it: NULL arguments, (NULL, 0), too-small buffers,
 * invalid UTF-8 (status and offset), exact rejection messages, frontmatter
 * iteration, classifiers, versions. Compiled -std=c99 -Wall -Wextra -Werror
 * -pedantic; run statically and dynamically linked, under ASan+UBSan and valgrind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airlock.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                              \
    do {                                                                         \
        checks++;                                                                \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

#define CHECK_STATUS(got, want)                                                  \
    do {                                                                         \
        airlock_status got_ = (got);                                             \
        airlock_status want_ = (want);                                           \
        checks++;                                                                \
        if (got_ != want_) {                                                     \
            fprintf(stderr, "%s:%d: status %s, want %s\n", __FILE__, __LINE__,   \
                    airlock_status_name(got_), airlock_status_name(want_));      \
            failures++;                                                          \
        }                                                                        \
    } while (0)

/* Whether buf[0..len] holds exactly the NUL-terminated string want. */
static int bytes_eq(const uint8_t *buf, size_t len, const char *want) {
    return len == strlen(want) && memcmp(buf, want, len) == 0;
}

#define S(lit) (const uint8_t *)(lit), (sizeof(lit) - 1)

static void test_versions_and_names(void) {
    uint32_t s;
    CHECK(strcmp(airlock_unicode_version(), "17.0.0") == 0);
    CHECK(strlen(airlock_version()) > 0);
    CHECK(strcmp(airlock_status_name(AIRLOCK_STATUS_OK), "AIRLOCK_STATUS_OK") == 0);
    CHECK(strcmp(airlock_status_name(AIRLOCK_STATUS_BUFFER_TOO_SMALL),
                 "AIRLOCK_STATUS_BUFFER_TOO_SMALL") == 0);
    CHECK(strcmp(airlock_status_name(12345), "AIRLOCK_STATUS_UNKNOWN") == 0);
    for (s = AIRLOCK_STATUS_OK; s <= AIRLOCK_STATUS_INTERNAL; s++) {
        CHECK(strncmp(airlock_status_name(s), "AIRLOCK_STATUS_", 15) == 0);
        CHECK(strcmp(airlock_status_name(s), "AIRLOCK_STATUS_UNKNOWN") != 0);
    }
    CHECK(strncmp(airlock_envelope_begin(), "<!-- untrusted-content:start ", 29) == 0);
    CHECK(strcmp(airlock_envelope_end(), "<!-- untrusted-content:end -->") == 0);
    CHECK(strcmp(airlock_shape_pattern(AIRLOCK_SHAPE_EXPIRES_AT), "^\\d{4}-\\d{2}-\\d{2}$") == 0);
    CHECK(airlock_shape_pattern(0) == NULL);
    CHECK(strcmp(airlock_meta_key_name(AIRLOCK_META_KEY_HOST_CLASS), "host-class") == 0);
    CHECK(airlock_meta_key_name(99) == NULL);
}

static void test_strip(void) {
    uint8_t out[64];
    size_t len = 999, off = 999;
    /* ZWSP between a and b, a tag character, and 1 FE0F keycap: all dropped but 20E3. */
    CHECK_STATUS(airlock_strip(S("a\xE2\x80\x8B" "b\xF3\xA0\x81\xA1" "1\xEF\xB8\x8F\xE2\x83\xA3"),
                               out, sizeof out, &len, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(out, len, "ab1\xE2\x83\xA3"));

    /* (NULL, 0) is the empty input. */
    len = 999;
    CHECK_STATUS(airlock_strip(NULL, 0, out, sizeof out, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(len == 0);
    /* (NULL, 0) output with an empty result is fine too. */
    CHECK_STATUS(airlock_strip(NULL, 0, NULL, 0, &len, NULL), AIRLOCK_STATUS_OK);
    /* (NULL, n > 0) is NULL_ARG, for inputs and outputs; out_len is required. */
    CHECK_STATUS(airlock_strip(NULL, 3, out, sizeof out, &len, NULL), AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_strip(S("abc"), NULL, 3, &len, NULL), AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_strip(S("abc"), out, sizeof out, NULL, NULL), AIRLOCK_STATUS_NULL_ARG);

    /* Too small: the size needed, nothing written. */
    memset(out, 'Z', sizeof out);
    len = 0;
    CHECK_STATUS(airlock_strip(S("abc\xE2\x80\x8B" "def"), out, 5, &len, NULL),
                 AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(len == 6);
    CHECK(out[0] == 'Z' && out[4] == 'Z');
    CHECK_STATUS(airlock_strip(S("abc\xE2\x80\x8B" "def"), NULL, 0, &len, NULL),
                 AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(len == 6);
    CHECK_STATUS(airlock_strip(S("abc\xE2\x80\x8B" "def"), out, 6, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(out, len, "abcdef"));

    /* Invalid UTF-8: its own status and the byte offset; outputs untouched. */
    len = 777;
    CHECK_STATUS(airlock_strip(S("ok \xE2\x82 x"), out, sizeof out, &len, &off),
                 AIRLOCK_STATUS_INVALID_UTF8);
    CHECK(off == 3);
    CHECK(len == 777);
    CHECK_STATUS(airlock_strip(S("\xFF"), out, sizeof out, &len, NULL), AIRLOCK_STATUS_INVALID_UTF8);
    CHECK_STATUS(airlock_strip(S("abcd\xED\xA0\x80"), out, sizeof out, &len, &off),
                 AIRLOCK_STATUS_INVALID_UTF8);
    CHECK(off == 4);

    /* In place (out overlapping text) is refused rather than aliased. */
    memcpy(out, "abc", 3);
    CHECK_STATUS(airlock_strip(out, 3, out + 1, 8, &len, NULL), AIRLOCK_STATUS_INVALID_ARG);

    /* An out pointer inside the output buffer is refused, and nothing is written. */
    {
        size_t words[8] = {0};
        CHECK_STATUS(airlock_strip(S("abc"), (uint8_t *)words, sizeof words, &words[2], NULL),
                     AIRLOCK_STATUS_INVALID_ARG);
        CHECK(words[0] == 0 && words[2] == 0);
        CHECK_STATUS(airlock_strip(S("\xFF"), out, sizeof out, &len, (size_t *)(void *)words),
                     AIRLOCK_STATUS_INVALID_UTF8);
    }

    CHECK_STATUS(airlock_utf8_validate(S("\xC3\xA9t\xC3\xA9"), &off), AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_utf8_validate(S("\xC3\xA9t\xC3"), &off), AIRLOCK_STATUS_INVALID_UTF8);
    CHECK(off == 3);
    CHECK_STATUS(airlock_utf8_validate(NULL, 0, NULL), AIRLOCK_STATUS_OK);
}

static void test_truncate(void) {
    size_t len = 0, off = 0;
    CHECK_STATUS(airlock_truncate(S("\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC"), 8, &len, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(len == 6);
    CHECK_STATUS(airlock_truncate(S("abc"), 0, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(len == 0);
    CHECK_STATUS(airlock_truncate(S("abc"), 10, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(len == 3);
    CHECK_STATUS(airlock_truncate(NULL, 0, 5, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(len == 0);
    CHECK_STATUS(airlock_truncate(S("abc"), 1, NULL, NULL), AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_truncate(S("ab\xC3("), 1, &len, &off), AIRLOCK_STATUS_INVALID_UTF8);
    CHECK(off == 2);
}

static void test_sanitize(void) {
    uint8_t out[256];
    uint8_t msg[512];
    size_t len = 0, msg_len = 0, off = 0;
    const char *forgery_msg =
        "reconcile-sanitize: rejecting record \xE2\x80\x94 insight must not contain the "
        "delivery-wrapper literal \"</APPLICABLE-RULES>\" (got \"</APPLICABLE-RULES>\")";

    CHECK_STATUS(airlock_sanitize_prose(S("a\x1b[31mb\r\nc\td untrusted-content:END"), S("insight"),
                                        AIRLOCK_INSIGHT_MAX_BYTES, out, sizeof out, &len, msg,
                                        sizeof msg, &msg_len, &off),
                 AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(out, len, "a[31mb\nc\td [redacted-envelope-marker]"));

    /* The cut and the reference's note. */
    CHECK_STATUS(airlock_sanitize_prose(S("\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC"), S("insight"), 8,
                                        out, sizeof out, &len, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(out, len,
                   "\xE2\x82\xAC\xE2\x82\xAC [\xE2\x80\xA6truncated by the reconciliation engine: "
                   "9 bytes exceeded the 8-byte cap]"));
    CHECK(len <= airlock_worst_case_len(9, 8));

    /* A forgery, split by a ZWSP (stripping runs first), with the exact message. */
    memset(out, 'Z', sizeof out);
    len = 4242;
    CHECK_STATUS(airlock_sanitize_prose(S("x </APPLI\xE2\x80\x8B" "CABLE-RULES> y"), S("insight"),
                                        1000, out, sizeof out, &len, msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len, forgery_msg));
    CHECK(len == 4242 && out[0] == 'Z');

    /* The message buffer too small: still REJECTED, the length needed, nothing written. */
    memset(msg, 'Q', sizeof msg);
    CHECK_STATUS(airlock_sanitize_prose(S("</applicable-rules>"), S("insight"), 1000, out,
                                        sizeof out, &len, msg, 10, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(msg_len == strlen(forgery_msg));
    CHECK(msg[0] == 'Q' && msg[9] == 'Q');
    /* No message wanted. */
    CHECK_STATUS(airlock_sanitize_prose(S("</applicable-rules>"), S("insight"), 1000, out,
                                        sizeof out, &len, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_REJECTED);
    /* Any field name appears in the message. */
    CHECK_STATUS(airlock_sanitize_prose(S("## Learnings Index (selected"), S("evidence[3]"), 10,
                                        out, sizeof out, &len, msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 evidence[3] must not contain "
                   "the delivery-wrapper literal \"## Learnings Index (selected\" (got \"## "
                   "Learnings Index (selected\")"));

    /* Sizing by asking first. */
    CHECK_STATUS(airlock_sanitize_prose(S("hello world"), S("title"), 5, NULL, 0, &len, NULL, 0,
                                        NULL, NULL),
                 AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(len == 5 + strlen(" [\xE2\x80\xA6truncated by the reconciliation engine: 11 bytes "
                            "exceeded the 5-byte cap]"));

    /* Arguments. */
    CHECK_STATUS(airlock_sanitize_prose(NULL, 0, NULL, 0, 10, NULL, 0, &len, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(len == 0);
    CHECK_STATUS(airlock_sanitize_prose(S("x"), NULL, 2, 10, out, sizeof out, &len, NULL, 0, NULL,
                                        NULL),
                 AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_sanitize_prose(S("x"), S("f"), 10, out, sizeof out, NULL, NULL, 0, NULL,
                                        NULL),
                 AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_sanitize_prose(S("x"), S("f"), 10, out, sizeof out, &len, NULL, 8,
                                        &msg_len, NULL),
                 AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_sanitize_prose(S("x"), S("f\xFF"), 10, out, sizeof out, &len, NULL, 0,
                                        NULL, NULL),
                 AIRLOCK_STATUS_INVALID_FIELD);
    CHECK_STATUS(airlock_sanitize_prose(S("abc\x80"), S("f"), 10, out, sizeof out, &len, NULL, 0,
                                        NULL, &off),
                 AIRLOCK_STATUS_INVALID_UTF8);
    CHECK(off == 3);
    /* msg overlapping out. */
    CHECK_STATUS(airlock_sanitize_prose(S("x"), S("f"), 10, out, 64, &len, out + 32, 64,
                                        &msg_len, NULL),
                 AIRLOCK_STATUS_INVALID_ARG);
    CHECK(airlock_worst_case_len(0, 0) == 0);
    CHECK(airlock_worst_case_len(100, 1000) >= 100);
}

static void test_checks(void) {
    uint8_t msg[1024];
    size_t msg_len = 0, off = 0;
    char big[601];

    CHECK_STATUS(airlock_check_machine_token(S("2026-08-18"), S("expires-at"),
                                             AIRLOCK_SHAPE_EXPIRES_AT, msg, sizeof msg, &msg_len,
                                             NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_check_machine_token(S("2026-08-18\n"), S("expires-at"),
                                             AIRLOCK_SHAPE_EXPIRES_AT, msg, sizeof msg, &msg_len,
                                             NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 expires-at must match "
                   "^\\d{4}-\\d{2}-\\d{2}$ (got \"2026-08-18\\n\")"));
    CHECK_STATUS(airlock_check_machine_token(NULL, 0, S("host-class"), AIRLOCK_SHAPE_HOST_CLASS,
                                             msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 host-class must be a "
                   "non-empty string (got \"\")"));
    CHECK_STATUS(airlock_check_machine_token(S("Web.App_1"), S("host-class"),
                                             AIRLOCK_SHAPE_HOST_CLASS, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_check_machine_token(S("a/b-c"), S("learning-key"),
                                             AIRLOCK_SHAPE_LEARNING_KEY, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_check_machine_token(S("A/b"), S("learning-key"),
                                             AIRLOCK_SHAPE_LEARNING_KEY, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK_STATUS(airlock_check_machine_token(S("s:1.2"), S("source-session"),
                                             AIRLOCK_SHAPE_PROVENANCE, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_check_machine_token(S("x"), S("f"), 0, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_INVALID_ARG);
    CHECK_STATUS(airlock_check_machine_token(S("x"), S("f"), 77, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_INVALID_ARG);

    CHECK_STATUS(airlock_check_no_control(S("ok \xF3\xA0\x81\xA1 text"), S("description"), msg,
                                          sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 description must not contain "
                   "the dangerous invisible U+E0061 (invisible to a reviewer, text to a model) "
                   "(got \"ok \xF3\xA0\x81\xA1 text\")"));
    CHECK_STATUS(airlock_check_no_control(S("a\x1b" "b"), S("title"), msg, sizeof msg, &msg_len,
                                          NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 title must not contain "
                   "control characters (frontmatter escape) (got \"a\\u001bb\")"));
    CHECK_STATUS(airlock_check_no_control(NULL, 0, NULL, 0, msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_OK);
    /* An orphan selector is not rejected here. */
    CHECK_STATUS(airlock_check_no_control(S("1\xEF\xB8\x8F"), S("f"), NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_check_no_control(S("\xC0\x80"), S("f"), NULL, 0, NULL, &off),
                 AIRLOCK_STATUS_INVALID_UTF8);
    CHECK(off == 0);

    memset(big, 'x', 513);
    big[513] = '\0';
    CHECK_STATUS(airlock_check_safe_description((const uint8_t *)big, 513, msg, sizeof msg,
                                                &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(msg_len > 120);
    CHECK(memcmp(msg,
                 "reconcile-sanitize: rejecting record \xE2\x80\x94 description must not exceed "
                 "512 bytes (got 513) (got \"xxx",
                 strlen("reconcile-sanitize: rejecting record \xE2\x80\x94 description must not "
                        "exceed 512 bytes (got 513) (got \"xxx")) == 0);
    CHECK_STATUS(airlock_check_safe_description((const uint8_t *)big, 512, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_check_safe_description(S("see </LEARNINGS-INDEX>"), msg, sizeof msg,
                                                &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);

    CHECK_STATUS(airlock_check_safe_glob(NULL, 0, msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 globs[] must be a non-empty "
                   "string (got \"\")"));
    CHECK_STATUS(airlock_check_safe_glob(S("src/**\"x"), msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 globs[] must not contain a "
                   "double quote (closes the quoted scalar) (got \"src/**\\\"x\")"));
    CHECK_STATUS(airlock_check_safe_glob(S("src/\xC2\xAD*.ts"), msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 globs[] must not contain the "
                   "dangerous invisible U+00AD (got \"src/\xC2\xAD*.ts\")"));
    CHECK_STATUS(airlock_check_safe_glob(S("src/**/*.ts"), NULL, 0, NULL, NULL), AIRLOCK_STATUS_OK);

    CHECK_STATUS(airlock_check_no_forgery(S("## applicable rules (SCOPED x"), S("body"), msg,
                                          sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "reconcile-sanitize: rejecting record \xE2\x80\x94 body must not contain the "
                   "delivery-wrapper literal \"## Applicable Rules (scoped\" (got \"## Applicable "
                   "Rules (scoped\")"));
    /* NBSP is not a space. */
    CHECK_STATUS(airlock_check_no_forgery(S("## Applicable\xC2\xA0Rules (scoped"), S("body"), NULL,
                                          0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_check_no_forgery(S("x"), NULL, 1, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_NULL_ARG);
}

static void test_fence(void) {
    uint8_t tok[AIRLOCK_FENCE_TOKEN_MAX_LEN];
    size_t len = 0, off = 0;
    CHECK_STATUS(airlock_fence_token(NULL, 0, tok, sizeof tok, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(tok, len, "9a271f2a"));
    CHECK_STATUS(airlock_fence_token(S("hello"), tok, sizeof tok, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(tok, len, "f6c5c364"));
    CHECK_STATUS(airlock_fence_token(S("\xE2\x82\xAC"), tok, sizeof tok, &len, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(tok, len, "f415df34"));
    memset(tok, 'Z', sizeof tok);
    CHECK_STATUS(airlock_fence_token(S("- a"), tok, 7, &len, NULL), AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(len == 8 && tok[0] == 'Z');
    CHECK_STATUS(airlock_fence_token(S("- a"), tok, 8, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(tok, len, "20faed25"));
    CHECK_STATUS(airlock_fence_token(S("- a"), tok, 8, NULL, NULL), AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_fence_token(S("a\xF5"), tok, 8, &len, &off), AIRLOCK_STATUS_INVALID_UTF8);
    CHECK(off == 1);
}

static void test_frontmatter(void) {
    static const char doc[] =
        "<!-- generated -->\n"
        "---\n"
        "description: \"Guards the loader\"\n"
        "globs:\n"
        "  - \"src/**/*.ts\"\n"
        "  - 'lib/*.js'\n"
        "alwaysApply: false\n"
        "confidence: 0.8\n"
        "description: later wins\n"
        "---\n"
        "# body\n";
    const uint8_t *d = (const uint8_t *)doc;
    size_t n = sizeof doc - 1;
    airlock_frontmatter_summary sum;
    airlock_meta_entry e;
    size_t start = 0, len = 0, msg_len = 0;
    uint8_t msg[512];

    CHECK_STATUS(airlock_frontmatter_parse(d, n, &sum, msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(sum.has_globs && sum.glob_count == 2 && sum.meta_count == 3);
    CHECK_STATUS(airlock_frontmatter_glob(d, n, 0, &start, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(d + start, len, "src/**/*.ts"));
    CHECK_STATUS(airlock_frontmatter_glob(d, n, 1, &start, &len, NULL), AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(d + start, len, "lib/*.js"));
    CHECK_STATUS(airlock_frontmatter_glob(d, n, 2, &start, &len, NULL), AIRLOCK_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(airlock_frontmatter_glob(d, n, 0, NULL, &len, NULL), AIRLOCK_STATUS_NULL_ARG);

    /* Insertion order (first assignment), last value. */
    CHECK_STATUS(airlock_frontmatter_meta(d, n, 0, &e, NULL), AIRLOCK_STATUS_OK);
    CHECK(e.key == AIRLOCK_META_KEY_DESCRIPTION && e.kind == AIRLOCK_META_KIND_STRING);
    CHECK(bytes_eq(d + e.str_start, e.str_len, "later wins"));
    CHECK_STATUS(airlock_frontmatter_meta(d, n, 1, &e, NULL), AIRLOCK_STATUS_OK);
    CHECK(e.key == AIRLOCK_META_KEY_ALWAYS_APPLY && e.kind == AIRLOCK_META_KIND_BOOL &&
          !e.bool_value);
    CHECK_STATUS(airlock_frontmatter_meta(d, n, 2, &e, NULL), AIRLOCK_STATUS_OK);
    CHECK(e.key == AIRLOCK_META_KEY_CONFIDENCE && e.kind == AIRLOCK_META_KIND_NUMBER &&
          e.number_value == 0.8);
    CHECK_STATUS(airlock_frontmatter_meta(d, n, 3, &e, NULL), AIRLOCK_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(airlock_frontmatter_meta(d, n, 0, NULL, NULL), AIRLOCK_STATUS_NULL_ARG);

    /* No block: globs null, no keys. */
    CHECK_STATUS(airlock_frontmatter_parse(NULL, 0, &sum, NULL, 0, NULL, NULL), AIRLOCK_STATUS_OK);
    CHECK(!sum.has_globs && sum.glob_count == 0 && sum.meta_count == 0);
    CHECK_STATUS(airlock_frontmatter_parse(S("---\nglobs: []\n---\n"), &sum, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(sum.has_globs && sum.glob_count == 0);
    CHECK_STATUS(airlock_frontmatter_parse(d, n, NULL, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_NULL_ARG);

    /* A parse error, with its message. */
    CHECK_STATUS(airlock_frontmatter_parse(S("---\nno colon here\n---\n"), &sum, msg, sizeof msg,
                                           &msg_len, NULL),
                 AIRLOCK_STATUS_PARSE_ERROR);
    CHECK(bytes_eq(msg, msg_len, "Malformed frontmatter line: \"no colon here\""));
    CHECK_STATUS(airlock_frontmatter_glob(S("---\nno colon here\n---\n"), 0, &start, &len, NULL),
                 AIRLOCK_STATUS_PARSE_ERROR);

    /* The gate. */
    CHECK_STATUS(airlock_frontmatter_refusal(d, n, msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_frontmatter_refusal(S("---\nauto-generated: true\nalwaysApply: true\n"
                                               "globs: a/**\nlearning-key: k\n---\n"),
                                             msg, sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "auto-generated rule fails the never-always-on invariant: missing required "
                   "frontmatter key: expires-at; alwaysApply: true on an auto-generated rule "
                   "\xE2\x80\x94 the renderer only ever emits false"));
    CHECK_STATUS(airlock_frontmatter_refusal(S("---\nbad line\n---\n"), msg, 8, &msg_len, NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(msg_len == strlen("frontmatter does not parse (Malformed frontmatter line: \"bad line\") "
                            "\xE2\x80\x94 rule-loader.mjs treats a parse error as ALWAYS-ON with "
                            "empty meta, so this file would load in every context and pass every "
                            "gate"));

    /* The 3.21.0 gate: alwaysApply is refused on any document; 0 is the default. */
    CHECK_STATUS(airlock_frontmatter_refusal_gate(S("---\nalwaysApply: true\n---\n"), 0, msg,
                                                  sizeof msg, &msg_len, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_frontmatter_refusal_gate(S("---\nalwaysApply: true\n---\n"),
                                                  AIRLOCK_GATE_V3_21, msg, sizeof msg, &msg_len,
                                                  NULL),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(bytes_eq(msg, msg_len,
                   "rule fails the never-always-on invariant: alwaysApply: true \xE2\x80\x94 a "
                   "rule written through this writer must never declare itself always-on (the "
                   "renderer only ever emits false)"));
    CHECK_STATUS(airlock_frontmatter_refusal_gate(S("---\n---\n"), 322, msg, sizeof msg, &msg_len,
                                                  NULL),
                 AIRLOCK_STATUS_INVALID_ARG);

    /* Everything in one call: too little room says how much, then it fits. */
    airlock_span globs[2];
    airlock_meta_entry meta[3];
    CHECK_STATUS(airlock_frontmatter_read(d, n, &sum, globs, 1, meta, 3, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(sum.has_globs && sum.glob_count == 2 && sum.meta_count == 3);
    CHECK_STATUS(airlock_frontmatter_read(d, n, &sum, globs, 2, meta, 3, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(bytes_eq(d + globs[1].start, globs[1].len, "lib/*.js"));
    CHECK(meta[0].key == AIRLOCK_META_KEY_DESCRIPTION &&
          bytes_eq(d + meta[0].str_start, meta[0].str_len, "later wins"));
    CHECK(meta[2].kind == AIRLOCK_META_KIND_NUMBER && meta[2].number_value == 0.8);
    CHECK_STATUS(airlock_frontmatter_read(d, n, &sum, NULL, 2, meta, 3, NULL, 0, NULL, NULL),
                 AIRLOCK_STATUS_NULL_ARG);
}

static void test_classifiers(void) {
    CHECK(airlock_is_control(0x1B) && airlock_is_control(0x85) && !airlock_is_control('a'));
    CHECK(airlock_is_dangerous_invisible(0x200B) && airlock_is_dangerous_invisible(0xE0061));
    CHECK(!airlock_is_dangerous_invisible(0x200E) && !airlock_is_dangerous_invisible(0xA0));
    CHECK(airlock_is_extended_pictographic(0x1F600) && !airlock_is_extended_pictographic('1'));
    CHECK(airlock_is_variation_selector(0xFE0F) && !airlock_is_variation_selector(0xE0100));
    CHECK(airlock_is_orphan_selector(0xFE0F, AIRLOCK_NO_CODE_POINT));
    CHECK(airlock_is_orphan_selector(0xFE0F, '1'));
    CHECK(!airlock_is_orphan_selector(0xFE0F, 0x2764));
    CHECK(airlock_is_orphan_selector(0xFE0E, 0x2764));
    CHECK(airlock_is_stripped(0x200D, AIRLOCK_NO_CODE_POINT) && !airlock_is_stripped('a', 'b'));
    CHECK(!airlock_is_control(0xD800) && !airlock_is_control(0x110000));
}

/* UTF-16LE bytes of `n` code units. */
static void le16(const uint16_t *units, size_t n, uint8_t *out) {
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = (uint8_t)(units[i] & 0xFF);
        out[2 * i + 1] = (uint8_t)(units[i] >> 8);
    }
}

static int units_eq(const uint8_t *out, size_t len, const uint16_t *want, size_t n) {
    if (len != n) return 0;
    for (size_t i = 0; i < n; i++) {
        if ((uint16_t)(out[2 * i] | (out[2 * i + 1] << 8)) != want[i]) return 0;
    }
    return 1;
}

static void test_utf16(void) {
    uint8_t text[256], scratch[2048], out[1024];
    airlock_text16_result r;
    /* Unchanged: nothing written, the caller keeps its string. */
    static const uint16_t plain[] = {'h', 'i', 0x2014, 0xD800};
    le16(plain, 4, text);
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, 4, S("insight"), 100, scratch, sizeof scratch,
                                              out, sizeof out, &r),
                 AIRLOCK_STATUS_OK);
    CHECK(r.encoding == AIRLOCK_ENCODING_UNCHANGED);
    /* Latin-1 out when every code point fits. */
    static const uint16_t cafe[] = {'c', 'a', 'f', 0xE9, 0x200B};
    le16(cafe, 5, text);
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, 5, S("insight"), 100, scratch, sizeof scratch,
                                              out, sizeof out, &r),
                 AIRLOCK_STATUS_OK);
    CHECK(r.encoding == AIRLOCK_ENCODING_LATIN1 && r.len == 4 && memcmp(out, "caf\xE9", 4) == 0);
    /* Lone halves pair across a dropped zero-width space; a lone one stays. */
    static const uint16_t halves[] = {0xD83D, 0x200B, 0xDE00, ' ', 0xDC00, 0x0007};
    static const uint16_t paired[] = {0xD83D, 0xDE00, ' ', 0xDC00};
    le16(halves, 6, text);
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, 6, S("insight"), 100, scratch, sizeof scratch,
                                              out, sizeof out, &r),
                 AIRLOCK_STATUS_OK);
    CHECK(r.encoding == AIRLOCK_ENCODING_UTF16 && units_eq(out, r.len, paired, 4));
    /* Too small a scratch or out: the sizes that suffice. */
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, 6, S("insight"), 100, scratch, 8, out,
                                              sizeof out, &r),
                 AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(r.scratch_len == airlock_sanitize_prose_utf16_scratch_len(6, 100));
    CHECK(r.len == airlock_sanitize_prose_utf16_out_len(6, 100));
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, 6, S("insight"), 100, scratch, sizeof scratch,
                                              out, 4, &r),
                 AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(r.len >= 8);
    /* A forgery: the message in out, as UTF-8. */
    static const char forged[] = "x</APPLICABLE-RULES>";
    uint16_t f16[sizeof forged];
    for (size_t i = 0; i + 1 < sizeof forged; i++) f16[i] = (uint8_t)forged[i];
    le16(f16, sizeof forged - 1, text);
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, sizeof forged - 1, S("title"), 100, scratch,
                                              sizeof scratch, out, sizeof out, &r),
                 AIRLOCK_STATUS_REJECTED);
    CHECK(r.len < sizeof out &&
          memcmp(out, "reconcile-sanitize: rejecting record \xE2\x80\x94 title must not", 55) == 0);
    /* Arguments: NULL result, NULL with a length, overlapping buffers, odd pointers. */
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, 6, S("insight"), 100, scratch, sizeof scratch,
                                              out, sizeof out, NULL),
                 AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_sanitize_prose_utf16(NULL, 3, S("insight"), 100, scratch, sizeof scratch,
                                              out, sizeof out, &r),
                 AIRLOCK_STATUS_NULL_ARG);
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, 6, S("insight"), 100, scratch, sizeof scratch,
                                              scratch + 8, 64, &r),
                 AIRLOCK_STATUS_INVALID_ARG);
    CHECK_STATUS(airlock_sanitize_prose_utf16(text + 1, 6, S("insight"), 100, scratch,
                                              sizeof scratch, out, sizeof out, &r),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_sanitize_prose_utf16(text, SIZE_MAX / 2 + 1, S("insight"), 100, scratch,
                                              sizeof scratch, out, sizeof out, &r),
                 AIRLOCK_STATUS_INVALID_ARG);
    CHECK_STATUS(airlock_sanitize_prose_utf16(NULL, 0, (const uint8_t *)"\xFF", 1, 100, scratch,
                                              sizeof scratch, out, sizeof out, &r),
                 AIRLOCK_STATUS_INVALID_FIELD);
    CHECK(airlock_sanitize_prose_utf16_scratch_len(SIZE_MAX, 5) == SIZE_MAX);
    /* The fence token of the units' UTF-8, a lone surrogate as U+FFFD. */
    static const uint16_t euro[] = {0x20AC};
    le16(euro, 1, text);
    CHECK_STATUS(airlock_fence_token_utf16(text, 1, scratch, sizeof scratch, out, sizeof out, &r),
                 AIRLOCK_STATUS_OK);
    CHECK(r.encoding == AIRLOCK_ENCODING_LATIN1 && bytes_eq(out, r.len, "f415df34"));
    uint8_t tok[64];
    size_t tok_len = 0;
    static const uint16_t lone[] = {'a', 0xDFFF};
    le16(lone, 2, text);
    CHECK_STATUS(airlock_fence_token_utf16(text, 2, scratch, sizeof scratch, out, sizeof out, &r),
                 AIRLOCK_STATUS_OK);
    CHECK_STATUS(airlock_fence_token(S("a\xEF\xBF\xBD"), tok, sizeof tok, &tok_len, NULL),
                 AIRLOCK_STATUS_OK);
    CHECK(r.len == tok_len && memcmp(out, tok, tok_len) == 0);
    CHECK_STATUS(airlock_fence_token_utf16(text, 2, scratch, 5, out, sizeof out, &r),
                 AIRLOCK_STATUS_BUFFER_TOO_SMALL);
    CHECK(r.scratch_len == 6 && r.len == AIRLOCK_FENCE_TOKEN_MAX_LEN);
}

int main(void) {
    test_versions_and_names();
    test_strip();
    test_truncate();
    test_sanitize();
    test_checks();
    test_fence();
    test_frontmatter();
    test_classifiers();
    test_utf16();
    if (failures != 0) {
        fprintf(stderr, "test_api: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_api: all %d checks passed (airlock %s, Unicode %s)\n", checks, airlock_version(),
           airlock_unicode_version());
    return 0;
}
