package airlock

/*
#include "airlock_go.h"
*/
import "C"

import (
	"errors"
	"strconv"
)

// Status is an airlock_status value of the C ABI.
type Status uint32

// The statuses of the C ABI (include/airlock.h). Values are never reused.
const (
	StatusOK             Status = C.AIRLOCK_STATUS_OK
	StatusRejected       Status = C.AIRLOCK_STATUS_REJECTED
	StatusNullArg        Status = C.AIRLOCK_STATUS_NULL_ARG
	StatusBufferTooSmall Status = C.AIRLOCK_STATUS_BUFFER_TOO_SMALL
	StatusInvalidUTF8    Status = C.AIRLOCK_STATUS_INVALID_UTF8
	StatusInvalidField   Status = C.AIRLOCK_STATUS_INVALID_FIELD
	StatusInvalidArg     Status = C.AIRLOCK_STATUS_INVALID_ARG
	StatusParseError     Status = C.AIRLOCK_STATUS_PARSE_ERROR
	StatusOutOfRange     Status = C.AIRLOCK_STATUS_OUT_OF_RANGE
	StatusPanic          Status = C.AIRLOCK_STATUS_PANIC
	StatusInternal       Status = C.AIRLOCK_STATUS_INTERNAL
)

// String is the C name of the status, e.g. "AIRLOCK_STATUS_REJECTED".
func (s Status) String() string {
	return C.GoString(C.airlock_status_name(C.uint32_t(s)))
}

// RejectionError is a rejection by the reference's rules: a machine value that
// fails its check, prose that forges a delivery wrapper, a rule file the writer's
// gate refuses (Status == StatusRejected), or frontmatter that does not parse
// (Status == StatusParseError). Message is the reference implementation's message,
// byte for byte, and is also what Error returns.
type RejectionError struct {
	Status  Status
	Message string
}

func (e *RejectionError) Error() string { return e.Message }

// InvalidUTF8Error reports input that is not UTF-8. airlock never guesses at or
// passes through invalid UTF-8. Offset is the byte offset of the first invalid
// sequence in the argument the operation Op validates.
type InvalidUTF8Error struct {
	Op     string
	Offset int
}

func (e *InvalidUTF8Error) Error() string {
	return "airlock: " + e.Op + ": invalid UTF-8 at byte offset " + strconv.Itoa(e.Offset)
}

// StatusError is any other failure of a call into libairlock: an invalid argument
// (a negative byte cap, an unknown shape, a field name that is not UTF-8, ...), or
// an internal error (StatusPanic, StatusInternal) that is a bug in airlock.
type StatusError struct {
	Op     string
	Status Status
}

func (e *StatusError) Error() string {
	return "airlock: " + e.Op + ": " + e.Status.String()
}

// StatusOf is the status an error returned by this package stands for: StatusOK
// for nil, and StatusInternal for an error this package did not return.
func StatusOf(err error) Status {
	if err == nil {
		return StatusOK
	}
	var rej *RejectionError
	if errors.As(err, &rej) {
		return rej.Status
	}
	var inv *InvalidUTF8Error
	if errors.As(err, &inv) {
		return StatusInvalidUTF8
	}
	var st *StatusError
	if errors.As(err, &st) {
		return st.Status
	}
	return StatusInternal
}

// fail turns a non-OK, non-message status into an error.
func fail(op string, st C.airlock_status, errOffset C.size_t) error {
	switch Status(st) {
	case StatusOK:
		return nil
	case StatusInvalidUTF8:
		return &InvalidUTF8Error{Op: op, Offset: int(errOffset)}
	default:
		return &StatusError{Op: op, Status: Status(st)}
	}
}
