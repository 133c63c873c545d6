package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// wrapped is an error with a message of its own over the error it describes.
type wrapped struct {
	msg string
	err error
}

func (e *wrapped) Error() string { return e.msg }
func (e *wrapped) Unwrap() error { return e.err }

// Wrap returns an error whose message is msg and which unwraps to err, so that
// errors.Is and errors.As answer as for err. It returns nil for a nil err.
func Wrap(msg string, err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{msg: msg, err: err}
}

// JSON returns err, an error of json.Unmarshal or a json.Decoder, described without
// the input's bytes: "invalid JSON at byte 12", "JSON string where int64 wanted (field
// version)", "truncated JSON". An error of a type's own UnmarshalJSON is named by its
// Go type only, as its text may quote the value it rejected. It returns nil for nil.
func JSON(err error) error {
	if err == nil {
		return nil
	}
	return Wrap(describeJSON(err), err)
}

func describeJSON(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		kind, _, _ := strings.Cut(te.Value, " ") // "number 12": the kind, not the digits
		msg := fmt.Sprintf("JSON %s where %s wanted", kind, te.Type)
		if te.Field != "" {
			msg += " (field " + te.Field + ")"
		}
		return msg
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "truncated JSON"
	}
	return fmt.Sprintf("JSON rejected (%T)", err)
}
