package airlock

/*
#include "airlock_go.h"
*/
import "C"

// Shape is a machine-token shape for CheckMachineToken.
type Shape uint32

// The machine-token shapes (SPEC §3).
const (
	// ShapeHostClass is host-class: ^[A-Za-z0-9._-]+$.
	ShapeHostClass Shape = C.AIRLOCK_SHAPE_HOST_CLASS
	// ShapeLearningKey is learning-key: ^[a-z0-9/-]+$.
	ShapeLearningKey Shape = C.AIRLOCK_SHAPE_LEARNING_KEY
	// ShapeExpiresAt is expires-at: ^\d{4}-\d{2}-\d{2}$ (ASCII digits, nothing after).
	ShapeExpiresAt Shape = C.AIRLOCK_SHAPE_EXPIRES_AT
	// ShapeProvenance is learning-id and source-session: ^[A-Za-z0-9._:-]+$.
	ShapeProvenance Shape = C.AIRLOCK_SHAPE_PROVENANCE
)

// Pattern is the shape's pattern source exactly as rejection messages spell it,
// or "" for a value that is no shape.
func (s Shape) Pattern() string {
	p := C.airlock_shape_pattern(C.uint32_t(s))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// String is the shape's pattern source, or "Shape(n)" for a value that is no shape.
func (s Shape) String() string {
	if p := s.Pattern(); p != "" {
		return p
	}
	return "Shape(" + itoa(uint64(s)) + ")"
}

func itoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// checkResult turns the status of a check into an error, fetching the message
// of a rejection with retry (called again with room for it).
func checkResult(op string, r C.airlock_go_result,
	retry func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status,
) error {
	switch Status(r.status) {
	case StatusOK:
		return nil
	case StatusRejected:
		return message(op, r.status, r.msg_len, retry)
	default:
		return fail(op, r.status, r.err_offset)
	}
}

// CheckMachineToken is the reference's assertMachineToken(value, {field,
// pattern}): value must be non-empty and have shape, or it is rejected (a
// *RejectionError naming field), never repaired.
func CheckMachineToken(value, field string, shape Shape) error {
	r := C.airlock_go_check_machine_token(strPtr(value), sizeOf(len(value)), strPtr(field),
		sizeOf(len(field)), C.uint32_t(shape))
	if r.status == C.AIRLOCK_STATUS_OK {
		return nil
	}
	return checkResult("check machine token", r,
		func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status {
			return C.airlock_check_machine_token(strPtr(value), sizeOf(len(value)), strPtr(field),
				sizeOf(len(field)), C.uint32_t(shape), msg, msgCap, msgLen, nil)
		})
}

// CheckNoControl is the reference's assertNoControlChars(value, field): no
// control character (Cc), then no dangerous invisible. Empty passes.
func CheckNoControl(value, field string) error {
	r := C.airlock_go_check_no_control(strPtr(value), sizeOf(len(value)), strPtr(field),
		sizeOf(len(field)))
	if r.status == C.AIRLOCK_STATUS_OK {
		return nil
	}
	return checkResult("check no control", r,
		func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status {
			return C.airlock_check_no_control(strPtr(value), sizeOf(len(value)), strPtr(field),
				sizeOf(len(field)), msg, msgCap, msgLen, nil)
		})
}

// CheckSafeDescription is the reference's assertSafeDescription(value): the
// no-control check as "description", the wrapper-forgery check, then at most
// DescriptionMaxBytes bytes.
func CheckSafeDescription(value string) error {
	r := C.airlock_go_check_safe_description(strPtr(value), sizeOf(len(value)))
	if r.status == C.AIRLOCK_STATUS_OK {
		return nil
	}
	return checkResult("check safe description", r,
		func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status {
			return C.airlock_check_safe_description(strPtr(value), sizeOf(len(value)), msg, msgCap,
				msgLen, nil)
		})
}

// CheckSafeGlob is the reference's assertSafeGlob(value): non-empty, no '"', no
// control character, no dangerous invisible. The message names "globs[]".
func CheckSafeGlob(value string) error {
	r := C.airlock_go_check_safe_glob(strPtr(value), sizeOf(len(value)))
	if r.status == C.AIRLOCK_STATUS_OK {
		return nil
	}
	return checkResult("check safe glob", r,
		func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status {
			return C.airlock_check_safe_glob(strPtr(value), sizeOf(len(value)), msg, msgCap, msgLen, nil)
		})
}

// CheckNoForgery is the reference's assertNoWrapperForgery(text, field): text
// must not contain a delivery-wrapper literal (ASCII-case-insensitively). It does
// not strip first; SanitizeProse does.
func CheckNoForgery(text, field string) error {
	r := C.airlock_go_check_no_forgery(strPtr(text), sizeOf(len(text)), strPtr(field),
		sizeOf(len(field)))
	if r.status == C.AIRLOCK_STATUS_OK {
		return nil
	}
	return checkResult("check no forgery", r,
		func(msg *C.uint8_t, msgCap C.size_t, msgLen *C.size_t) C.airlock_status {
			return C.airlock_check_no_forgery(strPtr(text), sizeOf(len(text)), strPtr(field),
				sizeOf(len(field)), msg, msgCap, msgLen, nil)
		})
}
