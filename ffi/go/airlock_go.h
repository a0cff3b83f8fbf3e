/*
 * Shims for the Go binding: each wraps one airlock_* call and returns its status
 * and out-parameters by value, so Go passes no pointers to its own locals (which
 * would make them escape to the heap) on the common path. Inputs are still Go
 * memory passed without copying; rejection messages are fetched with the plain
 * airlock_* calls.
 */
#ifndef AIRLOCK_GO_H
#define AIRLOCK_GO_H

#include "airlock.h"

typedef struct {
	airlock_status status;
	size_t len;        /* out_len, prefix length, glob span length */
	size_t start;      /* glob span start */
	size_t msg_len;    /* length of the rejection/parse message */
	size_t err_offset; /* offset of the first invalid UTF-8 sequence */
} airlock_go_result;

typedef struct {
	airlock_status status;
	size_t msg_len;
	size_t err_offset;
	airlock_frontmatter_summary summary;
} airlock_go_parse;

typedef struct {
	airlock_status status;
	size_t err_offset;
	airlock_meta_entry entry;
} airlock_go_meta;

static inline airlock_go_result airlock_go_utf8_validate(const uint8_t *t, size_t n) {
	airlock_go_result r = {0};
	r.status = airlock_utf8_validate(t, n, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_strip(const uint8_t *t, size_t n, uint8_t *out, size_t cap) {
	airlock_go_result r = {0};
	r.status = airlock_strip(t, n, out, cap, &r.len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_truncate(const uint8_t *t, size_t n, size_t max) {
	airlock_go_result r = {0};
	r.status = airlock_truncate(t, n, max, &r.len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_fence_token(const uint8_t *t, size_t n, uint8_t *out, size_t cap) {
	airlock_go_result r = {0};
	r.status = airlock_fence_token(t, n, out, cap, &r.len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_sanitize_prose(const uint8_t *t, size_t n, const uint8_t *f,
		size_t fn, size_t max, uint8_t *out, size_t cap) {
	airlock_go_result r = {0};
	r.status = airlock_sanitize_prose(t, n, f, fn, max, out, cap, &r.len, NULL, 0, &r.msg_len,
		&r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_check_machine_token(const uint8_t *v, size_t n,
		const uint8_t *f, size_t fn, uint32_t shape) {
	airlock_go_result r = {0};
	r.status = airlock_check_machine_token(v, n, f, fn, shape, NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_check_no_control(const uint8_t *v, size_t n,
		const uint8_t *f, size_t fn) {
	airlock_go_result r = {0};
	r.status = airlock_check_no_control(v, n, f, fn, NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_check_no_forgery(const uint8_t *v, size_t n,
		const uint8_t *f, size_t fn) {
	airlock_go_result r = {0};
	r.status = airlock_check_no_forgery(v, n, f, fn, NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_check_safe_description(const uint8_t *v, size_t n) {
	airlock_go_result r = {0};
	r.status = airlock_check_safe_description(v, n, NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_check_safe_glob(const uint8_t *v, size_t n) {
	airlock_go_result r = {0};
	r.status = airlock_check_safe_glob(v, n, NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_frontmatter_refusal(const uint8_t *d, size_t n, uint32_t gate) {
	airlock_go_result r = {0};
	r.status = airlock_frontmatter_refusal_gate(d, n, gate, NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

static inline airlock_go_parse airlock_go_frontmatter_parse(const uint8_t *d, size_t n) {
	airlock_go_parse r = {0};
	r.status = airlock_frontmatter_parse(d, n, &r.summary, NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

static inline airlock_go_result airlock_go_frontmatter_glob(const uint8_t *d, size_t n, size_t i) {
	airlock_go_result r = {0};
	r.status = airlock_frontmatter_glob(d, n, i, &r.start, &r.len, &r.err_offset);
	return r;
}

static inline airlock_go_meta airlock_go_frontmatter_meta(const uint8_t *d, size_t n, size_t i) {
	airlock_go_meta r = {0};
	r.status = airlock_frontmatter_meta(d, n, i, &r.entry, &r.err_offset);
	return r;
}

/* globs and meta are Go slices of C structs (no Go pointers inside): cgo allows
   passing them for the duration of the call. */
static inline airlock_go_parse airlock_go_frontmatter_read(const uint8_t *d, size_t n,
		airlock_span *globs, size_t globs_cap, airlock_meta_entry *meta, size_t meta_cap) {
	airlock_go_parse r = {0};
	r.status = airlock_frontmatter_read(d, n, &r.summary, globs, globs_cap, meta, meta_cap,
		NULL, 0, &r.msg_len, &r.err_offset);
	return r;
}

#endif /* AIRLOCK_GO_H */
