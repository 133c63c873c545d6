package redact_test

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/redact"
)

const marker = "SECRET-MARKER"

type record struct {
	Version int64    `json:"version"`
	Hash    []byte   `json:"hash"`
	Tags    []string `json:"tags"`
	Strict  strict   `json:"strict"`
}

// strict rejects any value with an error that quotes it, as validating types do.
type strict struct{}

func (*strict) UnmarshalJSON(b []byte) error { return errors.New("bad value " + string(b)) }

// Every decoding error of a document holding the marker is described without it, and
// the error json returned is still reachable.
func TestJSONQuotesNoInput(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"syntax", `{"version": 1, "tags": [` + marker + `]}`, "invalid JSON at byte"},
		{"string for a number", `{"version": "` + marker + `"}`, "JSON string where int64 wanted (field version)"},
		{"number for a string", `{"tags": [1` + strings.Repeat("7", 5) + `]}`, "JSON number where string wanted"},
		{"bad base64", `{"hash": "` + marker + `"}`, "JSON rejected"},
		{"type's own error", `{"strict": "` + marker + `"}`, "JSON rejected (*errors.errorString)"},
		{"truncated", `{"tags": ["` + marker, "invalid JSON at byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r record
			raw := json.Unmarshal([]byte(tt.doc), &r)
			if raw == nil {
				t.Fatal("the document decoded")
			}
			err := redact.JSON(raw)
			if msg := err.Error(); strings.Contains(msg, marker) || strings.Contains(msg, "17777") || !strings.Contains(msg, tt.want) {
				t.Errorf("message %q: want %q and no input (json said %q)", msg, tt.want, raw)
			}
			if !errors.Is(err, raw) {
				t.Errorf("errors.Is(%v, the json error) is false", err)
			}
		})
	}
}

func TestWrapKeepsIdentity(t *testing.T) {
	_, raw := strconv.ParseInt(marker, 10, 64)
	err := redact.Wrap("stored version is not an integer", raw)
	var ne *strconv.NumError
	if !errors.Is(err, strconv.ErrSyntax) || !errors.As(err, &ne) || strings.Contains(err.Error(), marker) {
		t.Errorf("Wrap = %q: want strconv.ErrSyntax reachable and no marker", err)
	}
	if redact.Wrap("x", nil) != nil || redact.JSON(nil) != nil || !errors.Is(redact.JSON(io.EOF), io.EOF) {
		t.Error("Wrap or JSON of nil is not nil, or JSON loses io.EOF")
	}
}

func TestJSONOfATruncatedStream(t *testing.T) {
	var r record
	raw := json.NewDecoder(strings.NewReader(`{"tags": ["` + marker)).Decode(&r)
	if err := redact.JSON(raw); err == nil || err.Error() != "truncated JSON" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("JSON(%v) = %v, want truncated JSON", raw, err)
	}
}
