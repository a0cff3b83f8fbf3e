package airlock

/*
#include "airlock_go.h"
*/
import "C"

// Profile is a containment profile, chosen per call: ProfileReference (what the
// functions without a profile do, byte-identical with sanitize.mjs) or
// ProfileStrict (docs/PROFILE-STRICT.md).
type Profile uint32

// The profiles.
const (
	ProfileReference Profile = C.AIRLOCK_PROFILE_REFERENCE
	ProfileStrict    Profile = C.AIRLOCK_PROFILE_STRICT
)

// SanitizeProseProfile is SanitizeProse under profile.
func SanitizeProseProfile(text, field string, maxBytes int, profile Profile) (string, error) {
	const op = "sanitize prose"
	if maxBytes < 0 {
		return "", &StatusError{Op: op, Status: StatusInvalidArg}
	}
	size := C.airlock_worst_case_len_profile(C.uint32_t(profile), sizeOf(len(text)), sizeOf(maxBytes))
	if uint64(size) > uint64(maxInt) {
		return "", &StatusError{Op: op, Status: StatusInvalidArg}
	}
	buf := make([]byte, int(size))
	var outLen, msgLen, errOffset C.size_t
	st := C.airlock_sanitize_prose_profile(C.uint32_t(profile), strPtr(text), sizeOf(len(text)),
		strPtr(field), sizeOf(len(field)), sizeOf(maxBytes), bytesPtr(buf), sizeOf(len(buf)),
		&outLen, nil, 0, &msgLen, &errOffset)
	switch Status(st) {
	case StatusOK:
		return string(buf[:outLen]), nil
	case StatusRejected:
		return "", message(op, st, msgLen,
			func(msg *C.uint8_t, msgCap C.size_t, ml *C.size_t) C.airlock_status {
				var n C.size_t
				return C.airlock_sanitize_prose_profile(C.uint32_t(profile), strPtr(text),
					sizeOf(len(text)), strPtr(field), sizeOf(len(field)), sizeOf(maxBytes), nil, 0,
					&n, msg, msgCap, ml, nil)
			})
	default:
		return "", fail(op, st, errOffset)
	}
}

// StripInvisiblesProfile is StripInvisibles under profile.
func StripInvisiblesProfile(text string, profile Profile) (string, error) {
	const op = "strip invisibles"
	buf := make([]byte, len(text))
	var outLen, errOffset C.size_t
	st := C.airlock_strip_profile(C.uint32_t(profile), strPtr(text), sizeOf(len(text)),
		bytesPtr(buf), sizeOf(len(buf)), &outLen, &errOffset)
	if Status(st) != StatusOK {
		return "", fail(op, st, errOffset)
	}
	return string(buf[:outLen]), nil
}

// CheckNoControlProfile is CheckNoControl under profile (strict rejects every
// invisible strict would drop).
func CheckNoControlProfile(value, field string, profile Profile) error {
	const op = "check no control"
	var msgLen, errOffset C.size_t
	st := C.airlock_check_no_control_profile(C.uint32_t(profile), strPtr(value),
		sizeOf(len(value)), strPtr(field), sizeOf(len(field)), nil, 0, &msgLen, &errOffset)
	switch Status(st) {
	case StatusOK:
		return nil
	case StatusRejected:
		return message(op, st, msgLen,
			func(msg *C.uint8_t, msgCap C.size_t, ml *C.size_t) C.airlock_status {
				return C.airlock_check_no_control_profile(C.uint32_t(profile), strPtr(value),
					sizeOf(len(value)), strPtr(field), sizeOf(len(field)), msg, msgCap, ml, nil)
			})
	default:
		return fail(op, st, errOffset)
	}
}

// CheckSafeGlobProfile is CheckSafeGlob under profile (strict also rejects every
// invisible strict would drop).
func CheckSafeGlobProfile(value string, profile Profile) error {
	return checkProfile("check safe glob", value, profile,
		func(msg *C.uint8_t, msgCap C.size_t, msgLen, errOffset *C.size_t) C.airlock_status {
			return C.airlock_check_safe_glob_profile(C.uint32_t(profile), strPtr(value),
				sizeOf(len(value)), msg, msgCap, msgLen, errOffset)
		})
}

// CheckSafeDescriptionProfile is CheckSafeDescription under profile (strict also
// rejects every invisible strict would drop, and finds forgery literals on the
// folded view).
func CheckSafeDescriptionProfile(value string, profile Profile) error {
	return checkProfile("check safe description", value, profile,
		func(msg *C.uint8_t, msgCap C.size_t, msgLen, errOffset *C.size_t) C.airlock_status {
			return C.airlock_check_safe_description_profile(C.uint32_t(profile), strPtr(value),
				sizeOf(len(value)), msg, msgCap, msgLen, errOffset)
		})
}

// checkProfile runs a one-value *_profile check: once to size the message, again
// to read it on a rejection.
func checkProfile(op, value string, profile Profile,
	call func(msg *C.uint8_t, msgCap C.size_t, msgLen, errOffset *C.size_t) C.airlock_status) error {
	var msgLen, errOffset C.size_t
	st := call(nil, 0, &msgLen, &errOffset)
	switch Status(st) {
	case StatusOK:
		return nil
	case StatusRejected:
		return message(op, st, msgLen,
			func(msg *C.uint8_t, msgCap C.size_t, ml *C.size_t) C.airlock_status {
				return call(msg, msgCap, ml, nil)
			})
	default:
		return fail(op, st, errOffset)
	}
}
