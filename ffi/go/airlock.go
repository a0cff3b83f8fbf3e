// Package airlock is the Go binding of libairlock, the allocation-free containment
// of untrusted text on its way into a model's prompt (see SPEC.md).
//
// It links target/release/libairlock.a (build it first with
// `cargo build -p airlock-ffi --release` from the repository root) through cgo.
// Inputs are handed to C without copying: strings and byte slices hold no Go
// pointers and libairlock never keeps a pointer past the call, as cgo requires.
// Output buffers are allocated in Go.
//
// Text must be UTF-8: invalid UTF-8 is an *InvalidUTF8Error carrying the byte
// offset of the first invalid sequence, never guessed at or passed through.
// Rejections are *RejectionError values carrying the reference implementation's
// exact message. Every function is safe for concurrent use.
package airlock

/*
#cgo CFLAGS: -I${SRCDIR}/../../include -I${SRCDIR}
#cgo LDFLAGS: ${SRCDIR}/../../target/release/libairlock.a -lm -ldl -lpthread
#include "airlock_go.h"
*/
import "C"

import "unsafe"

// The reference's byte caps.
const (
	InsightMaxBytes      = C.AIRLOCK_INSIGHT_MAX_BYTES
	EvidenceItemMaxBytes = C.AIRLOCK_EVIDENCE_ITEM_MAX_BYTES
	EvidenceMaxBytes     = C.AIRLOCK_EVIDENCE_MAX_BYTES
	TitleMaxBytes        = C.AIRLOCK_TITLE_MAX_BYTES
	// DescriptionMaxBytes is a reject bound (CheckSafeDescription), not a cut.
	DescriptionMaxBytes = C.AIRLOCK_DESCRIPTION_MAX_BYTES
	// FenceTokenMaxLen is the longest fence token (the pathological fallback).
	FenceTokenMaxLen = C.AIRLOCK_FENCE_TOKEN_MAX_LEN
)

// strPtr is the data pointer of s for C, nil for "". Reading the first word of
// the string header is the Go 1.19 spelling of unsafe.StringData. C only reads it.
func strPtr(s string) *C.uint8_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint8_t)(*(*unsafe.Pointer)(unsafe.Pointer(&s)))
}

// bytesPtr is the data pointer of b for C, nil for an empty slice.
func bytesPtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// bytesToString views b as a string without copying; b must never change again.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return *(*string)(unsafe.Pointer(&b))
}

// sizeOf converts a Go length for C (lengths are never negative).
func sizeOf(n int) C.size_t { return C.size_t(n) }

// overlaps reports whether the spare capacity of dst shares memory with src.
func overlaps(dst, src []byte) bool {
	if len(src) == 0 || cap(dst) == len(dst) {
		return false
	}
	spare := dst[len(dst):cap(dst)]
	d0 := uintptr(unsafe.Pointer(&spare[0]))
	s0 := uintptr(unsafe.Pointer(&src[0]))
	return d0 < s0+uintptr(len(src)) && s0 < d0+uintptr(len(spare))
}

// grow returns dst with at least n bytes of spare capacity that does not overlap
// src, copying dst's contents when it has to reallocate.
func grow(dst []byte, n int, src []byte) []byte {
	if cap(dst)-len(dst) >= n && !overlaps(dst, src) {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}

// message runs a message-producing call again with room for the message whose
// length the first call reported, and wraps it in a *RejectionError.
func message(op string, want C.airlock_status, msgLen C.size_t,
	call func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status,
) error {
	buf := make([]byte, int(msgLen))
	var n C.size_t
	st := call(bytesPtr(buf), sizeOf(len(buf)), &n)
	if st != want || n != msgLen {
		return &StatusError{Op: op, Status: StatusInternal}
	}
	return &RejectionError{Status: Status(want), Message: bytesToString(buf)}
}

// Version is libairlock's version, e.g. "0.1.0".
func Version() string { return C.GoString(C.airlock_version()) }

// UnicodeVersion is the Unicode version of the Extended_Pictographic table.
func UnicodeVersion() string { return C.GoString(C.airlock_unicode_version()) }

// EnvelopeBegin is the line that opens an untrusted region (SPEC §7), no newline.
func EnvelopeBegin() string { return C.GoString(C.airlock_envelope_begin()) }

// EnvelopeEnd is the line that closes an untrusted region (SPEC §7), no newline.
func EnvelopeEnd() string { return C.GoString(C.airlock_envelope_end()) }

// ValidUTF8 checks that text is UTF-8; the error is an *InvalidUTF8Error.
func ValidUTF8(text []byte) error {
	r := C.airlock_go_utf8_validate(bytesPtr(text), sizeOf(len(text)))
	return fail("validate UTF-8", r.status, r.err_offset)
}

// IsControl reports whether r is a control (Cc): U+0000–U+001F, U+007F–U+009F.
func IsControl(r rune) bool { return bool(C.airlock_is_control(C.uint32_t(r))) }

// IsDangerousInvisible reports whether r is in the dangerous-invisible table
// (SPEC §2): stripped from prose, rejected in machine values.
func IsDangerousInvisible(r rune) bool {
	return bool(C.airlock_is_dangerous_invisible(C.uint32_t(r)))
}

// IsExtendedPictographic reports whether r has the Extended_Pictographic property.
func IsExtendedPictographic(r rune) bool {
	return bool(C.airlock_is_extended_pictographic(C.uint32_t(r)))
}

// NoRune is the "no predecessor" value of prev for IsOrphanSelector and IsStripped.
const NoRune rune = -1

// IsOrphanSelector reports whether r is an orphan variation selector after prev
// (the code point just before it in the original input, or NoRune).
func IsOrphanSelector(r, prev rune) bool {
	return bool(C.airlock_is_orphan_selector(C.uint32_t(r), C.uint32_t(prev)))
}

// IsStripped reports whether StripInvisibles drops r after prev (or NoRune).
func IsStripped(r, prev rune) bool {
	return bool(C.airlock_is_stripped(C.uint32_t(r), C.uint32_t(prev)))
}
