package airlock

/*
#include "airlock_go.h"
*/
import "C"

// WorstCaseLen is the most bytes SanitizeProse can produce for an input of
// textLen bytes and a cap of maxBytes (redaction lengthens text; a cut appends
// the note). It is the output buffer AppendSanitizeProse makes sure of.
func WorstCaseLen(textLen, maxBytes int) int {
	if textLen < 0 || maxBytes < 0 {
		return 0
	}
	n := C.airlock_worst_case_len(sizeOf(textLen), sizeOf(maxBytes))
	if uint64(n) > uint64(maxInt) {
		return maxInt
	}
	return int(n)
}

const maxInt = int(^uint(0) >> 1)

// SanitizeProse is the reference's sanitizeProse(text, {field, maxBytes}) (SPEC
// §3): it strips invisibles, drops controls but TAB and LF, rejects wrapper
// forgeries (a *RejectionError naming field), redacts envelope markers, cuts to
// maxBytes bytes on a code-point boundary and appends the truncation note.
func SanitizeProse(text, field string, maxBytes int) (string, error) {
	if maxBytes < 0 {
		return "", &StatusError{Op: "sanitize prose", Status: StatusInvalidArg}
	}
	buf := make([]byte, WorstCaseLen(len(text), maxBytes))
	n, err := sanitize(buf, strPtr(text), len(text), field, maxBytes)
	if err != nil {
		return "", err
	}
	if 2*n < len(buf) {
		// Do not pin a buffer mostly unused.
		return string(buf[:n]), nil
	}
	return bytesToString(buf[:n]), nil
}

// AppendSanitizeProse appends SanitizeProse(text, field, maxBytes) to dst and
// returns the extended slice; with enough spare capacity in dst (WorstCaseLen)
// it allocates nothing. On error it returns dst unchanged.
func AppendSanitizeProse(dst, text []byte, field string, maxBytes int) ([]byte, error) {
	if maxBytes < 0 {
		return dst, &StatusError{Op: "sanitize prose", Status: StatusInvalidArg}
	}
	out := grow(dst, WorstCaseLen(len(text), maxBytes), text)
	n, err := sanitize(out[len(out):cap(out)], bytesPtr(text), len(text), field, maxBytes)
	if err != nil {
		return dst, err
	}
	return out[:len(out)+n], nil
}

func sanitize(out []byte, text *C.uint8_t, textLen int, field string, maxBytes int) (int, error) {
	r := C.airlock_go_sanitize_prose(text, sizeOf(textLen), strPtr(field), sizeOf(len(field)),
		sizeOf(maxBytes), bytesPtr(out), sizeOf(len(out)))
	switch Status(r.status) {
	case StatusOK:
		return int(r.len), nil
	case StatusRejected:
		return 0, message("sanitize prose", r.status, r.msg_len,
			func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status {
				var outLen C.size_t
				return C.airlock_sanitize_prose(text, sizeOf(textLen), strPtr(field),
					sizeOf(len(field)), sizeOf(maxBytes), nil, 0, &outLen, msg, msgCap, msgLen, nil)
			})
	default:
		return 0, fail("sanitize prose", r.status, r.err_offset)
	}
}

// Truncation is the result of TruncateToBytes, the reference's
// {text, truncated, bytes}.
type Truncation struct {
	// Text is the longest prefix of whole code points of at most maxBytes bytes
	// (a substring of the input: nothing is copied).
	Text string
	// Truncated reports whether Text is shorter than the input.
	Truncated bool
	// Bytes is the input's length in bytes.
	Bytes int
}

// TruncateToBytes is the reference's truncateToBytes(text, maxBytes) (SPEC §3).
func TruncateToBytes(text string, maxBytes int) (Truncation, error) {
	n, err := truncateLen(strPtr(text), len(text), maxBytes)
	if err != nil {
		return Truncation{}, err
	}
	return Truncation{Text: text[:n], Truncated: n < len(text), Bytes: len(text)}, nil
}

// TruncateLen is the length of the prefix TruncateToBytes keeps: text[:n] is the
// longest prefix of whole code points of at most maxBytes bytes.
func TruncateLen(text []byte, maxBytes int) (int, error) {
	return truncateLen(bytesPtr(text), len(text), maxBytes)
}

func truncateLen(text *C.uint8_t, textLen, maxBytes int) (int, error) {
	if maxBytes < 0 {
		return 0, &StatusError{Op: "truncate", Status: StatusInvalidArg}
	}
	r := C.airlock_go_truncate(text, sizeOf(textLen), sizeOf(maxBytes))
	if r.status != C.AIRLOCK_STATUS_OK {
		return 0, fail("truncate", r.status, r.err_offset)
	}
	return int(r.len), nil
}

// StripInvisibles is the reference's stripDangerousInvisibles (SPEC §3): it drops
// the dangerous invisibles and orphan variation selectors and keeps everything
// else, controls included. When nothing is dropped it returns text itself
// without allocating.
func StripInvisibles(text string) (string, error) {
	p := strPtr(text)
	// Ask for the size first: most text loses nothing, and then no buffer is needed.
	r := C.airlock_go_strip(p, sizeOf(len(text)), nil, 0)
	switch Status(r.status) {
	case StatusOK:
		return "", nil // only an empty result fits in no buffer
	case StatusBufferTooSmall:
		if int(r.len) == len(text) {
			return text, nil
		}
	default:
		return "", fail("strip invisibles", r.status, r.err_offset)
	}
	buf := make([]byte, int(r.len))
	r = C.airlock_go_strip(p, sizeOf(len(text)), bytesPtr(buf), sizeOf(len(buf)))
	if r.status != C.AIRLOCK_STATUS_OK {
		return "", fail("strip invisibles", r.status, r.err_offset)
	}
	return bytesToString(buf[:r.len]), nil
}

// AppendStripInvisibles appends StripInvisibles(text) to dst and returns the
// extended slice; with len(text) bytes of spare capacity in dst it allocates
// nothing. On error it returns dst unchanged.
func AppendStripInvisibles(dst, text []byte) ([]byte, error) {
	out := grow(dst, len(text), text)
	spare := out[len(out):cap(out)]
	r := C.airlock_go_strip(bytesPtr(text), sizeOf(len(text)), bytesPtr(spare), sizeOf(len(spare)))
	if r.status != C.AIRLOCK_STATUS_OK {
		return dst, fail("strip invisibles", r.status, r.err_offset)
	}
	return out[:len(out)+int(r.len)], nil
}

// FenceToken is the reference's deriveFenceToken(payload) (SPEC §6): 8 lower-case
// hex characters (64 in the pathological fallback) that provably do not occur in
// the payload, so the payload cannot spell its own closing fence.
func FenceToken(payload []byte) (string, error) {
	return fenceToken(bytesPtr(payload), len(payload))
}

// FenceTokenString is FenceToken for a string payload.
func FenceTokenString(payload string) (string, error) {
	return fenceToken(strPtr(payload), len(payload))
}

func fenceToken(p *C.uint8_t, n int) (string, error) {
	buf := make([]byte, FenceTokenMaxLen)
	r := C.airlock_go_fence_token(p, sizeOf(n), bytesPtr(buf), sizeOf(len(buf)))
	if r.status != C.AIRLOCK_STATUS_OK {
		return "", fail("fence token", r.status, r.err_offset)
	}
	return bytesToString(buf[:r.len]), nil
}
