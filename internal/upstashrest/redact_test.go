package upstashrest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
)

// marker stands for stored bytes (a key record, a tenant document): no error may quote
// it, as sent or in the base64 the REST API carries it in.
const marker = "SECRET-MARKER"

func quotesMarker(s string) bool {
	return strings.Contains(s, marker) || strings.Contains(s, b64(marker)) || strings.Contains(s, "123456789012345678901")
}

// Every malformed or failed answer that holds the marker is an error that does not
// quote it, and keeps its identity for errors.Is.
func TestErrorsQuoteNoReplyBytes(t *testing.T) {
	record := `{"result":"` + b64(`{"hash":"`+marker+`","tenant":"acme"}`) + `"`
	tests := []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"not JSON", 200, "hello " + marker, upstashrest.ErrMalformedReply},
		{"a truncated key record", 200, record, upstashrest.ErrMalformedReply},
		{"a key record then data", 200, record + `}{"result":"` + marker + `"}`, upstashrest.ErrMalformedReply},
		{"a result that is not JSON", 200, `{"result":` + marker + `}`, upstashrest.ErrMalformedReply},
		{"a number beyond int64", 200, `{"result":123456789012345678901234}`, upstashrest.ErrMalformedReply},
		{"an object result", 200, `{"result":{"k":"` + marker + `"}}`, upstashrest.ErrMalformedReply},
		{"401 with a page", 401, "<p>" + marker + "</p>", upstashrest.ErrUnauthorized},
		{"500 with a page", 500, "<p>" + marker + "</p>", nil},
		{"502 with a key record", 502, record + "}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFake(t, reply(tt.status, tt.body)).client(t, upstashrest.Config{})
			_, err := c.Do(testCtx(t), "GET", "k")
			if err == nil || quotesMarker(err.Error()) {
				t.Fatalf("Do: err = %v, want an error without the marker", err)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Do: err = %v, want %v", err, tt.want)
			}
			_, err = c.Pipeline(testCtx(t), [][]any{{"GET", "k"}, {"GET", "j"}})
			if err == nil || quotesMarker(err.Error()) {
				t.Errorf("Pipeline: err = %v, want an error without the marker", err)
			}
		})
	}
}

// A reply of the wrong kind is described by its shape: kinds and lengths, no bytes.
func TestReplyShapeQuotesNoBytes(t *testing.T) {
	body := `{"result":["` + b64(marker) + `",null,7,["` + b64(marker) + `"]]}`
	r, err := newFake(t, reply(200, body)).client(t, upstashrest.Config{}).Do(testCtx(t), "HMGET", "k", "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	want := "array of 4 [string of 13 bytes, nil, integer, array of 1]"
	if got := r.Shape(); got != want {
		t.Errorf("Shape() = %q, want %q", got, want)
	}
	if _, err := r.Int64s(); err == nil || quotesMarker(err.Error()) || !errors.Is(err, upstashrest.ErrMalformedReply) {
		t.Errorf("Int64s() = %v, want a malformed reply without the marker", err)
	}
}

// The server's own error text is kept, on one line of at most 200 bytes.
func TestCommandErrorIsOneBoundedLine(t *testing.T) {
	msg := "ERR Error running script: line 1\n" + strings.Repeat("x", 300)
	_, err := newFake(t, reply(400, `{"error":"`+strings.ReplaceAll(msg, "\n", `\n`)+`"}`)).
		client(t, upstashrest.Config{}).Do(testCtx(t), "EVAL", "return 1", "0")
	var ce *upstashrest.CommandError
	if !errors.As(err, &ce) || ce.Code() != "ERR" || strings.Contains(ce.Message, "\n") ||
		len(ce.Message) > 203 || !strings.HasPrefix(ce.Message, "ERR Error running script: line 1 xxx") {
		t.Errorf("err = %#v, want a CommandError of one bounded line", err)
	}
}
