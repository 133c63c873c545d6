package upstashrest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// decodeStatus maps an HTTP status and body to the JSON value or an error.
func decodeStatus(status int, body []byte, name string) (any, error) {
	switch status {
	case http.StatusOK:
		return parseJSON(body)
	case http.StatusUnauthorized:
		return nil, fmt.Errorf("%w: %s", ErrUnauthorized, snippet(body))
	case http.StatusBadRequest:
		v, err := parseJSON(body)
		if err == nil {
			if _, err = envelope(v, name); errors.As(err, new(*CommandError)) {
				return nil, err
			}
		}
	}
	return nil, &StatusError{StatusCode: status, Snippet: snippet(body)}
}

// parseJSON decodes one JSON value, keeping numbers exact, and refuses trailing data.
func parseJSON(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, malformed("%v in %q", err, snippet(body))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, malformed("data after the JSON value in %q", snippet(body))
	}
	return v, nil
}

// envelope turns one {"result": ...} or {"error": "..."} object into a Reply or
// a *CommandError. command names the command for the error.
func envelope(v any, command string) (Reply, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return Reply{}, malformed("want an object with result or error, got %T", v)
	}
	if e, ok := obj["error"]; ok {
		msg, ok := e.(string)
		if !ok {
			return Reply{}, malformed("error is %T, not a string", e)
		}
		return Reply{}, &CommandError{Command: command, Message: msg}
	}
	result, ok := obj["result"]
	if !ok {
		return Reply{}, malformed("object has neither result nor error")
	}
	return decodeValue(result)
}

// decodeValue converts a JSON result sent under Upstash-Encoding: base64. Strings
// are base64 except the status reply "OK", which Upstash sends as is (the official
// client special-cases it the same way; "OK" is never valid padded base64, so it is
// unambiguous). A string that is not valid base64 is kept as sent, as the official
// client does.
func decodeValue(v any) (Reply, error) {
	switch v := v.(type) {
	case nil:
		return Reply{}, nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return Reply{}, malformed("number %s is not an int64", v)
		}
		return Reply{kind: KindInt, n: n}, nil
	case string:
		return Reply{kind: KindString, s: decodeBase64(v)}, nil
	case []any:
		elems := make([]Reply, len(v))
		for i, e := range v {
			r, err := decodeValue(e)
			if err != nil {
				return Reply{}, err
			}
			elems[i] = r
		}
		return Reply{kind: KindArray, a: elems}, nil
	}
	return Reply{}, malformed("unexpected JSON value of type %T", v)
}

func decodeBase64(s string) string {
	if s == "OK" {
		return s
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return string(b)
}
