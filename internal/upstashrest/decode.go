package upstashrest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/internal/redact"
)

// decodeReply maps a single command's HTTP status and body to its Reply or an error.
func decodeReply(status int, body []byte, name string) (Reply, error) {
	switch status {
	case http.StatusOK:
		return parseOne(body, name)
	case http.StatusUnauthorized:
		return Reply{}, fmt.Errorf("%w: %s", ErrUnauthorized, serverLine(body))
	case http.StatusBadRequest:
		if _, err := parseOne(body, name); errors.As(err, new(*CommandError)) {
			return Reply{}, err
		}
	}
	return Reply{}, &StatusError{Command: name, StatusCode: status, Snippet: serverLine(body)}
}

// decodeBatch maps the HTTP status and body of a /pipeline or /multi-exec request of
// n commands to their Results, whose CommandErrors the caller names. path labels
// errors.
func decodeBatch(status int, body []byte, path string, n int) ([]Result, error) {
	if status != http.StatusOK {
		_, err := decodeReply(status, body, path[1:])
		return nil, err
	}
	if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '{' { // the whole batch failed
		_, err := parseOne(body, path[1:])
		if err == nil {
			err = malformed("%s: got one result, want an array", path)
		}
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return nil, malformed("%s: want an array of %d results: %v in %d bytes", path, n, redact.JSON(err), len(body))
	}
	if len(items) != n {
		return nil, malformed("%s: %d results, want %d", path, len(items), n)
	}
	results := make([]Result, n)
	for i, item := range items {
		r, err := parseOne(item, "")
		if err != nil && !errors.As(err, new(*CommandError)) {
			return nil, err // a malformed item makes the whole reply untrustworthy
		}
		results[i] = Result{Reply: r, Err: err}
	}
	return results, nil
}

// envelope is one {"result": ...} or {"error": "..."}. As with any JSON object
// decoded so, a repeated member counts once, the last; error wins over result.
type envelope struct {
	Result json.RawMessage `json:"result"`
	Error  *string         `json:"error"`
}

// parseOne parses one envelope into a Reply or a *CommandError for command.
func parseOne(body []byte, command string) (Reply, error) {
	var e envelope
	if err := json.Unmarshal(body, &e); err != nil {
		return Reply{}, malformed("want an object with result or error: %v in %d bytes", redact.JSON(err), len(body))
	}
	if e.Error != nil {
		return Reply{}, &CommandError{Command: command, Message: oneLine(*e.Error)}
	}
	if e.Result == nil {
		return Reply{}, malformed("object has neither result nor error")
	}
	d := json.NewDecoder(bytes.NewReader(e.Result))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return Reply{}, malformed("result: %v", redact.JSON(err))
	}
	return toReply(v)
}

// toReply converts a result sent under Upstash-Encoding: base64, decoded with
// UseNumber: null, an integer, a string or an array of those.
func toReply(v any) (Reply, error) {
	switch v := v.(type) {
	case nil:
		return Reply{}, nil
	case string:
		return Reply{kind: KindString, s: decodeBase64(v)}, nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return Reply{}, malformed("a number of %d characters is not an int64", len(v))
		}
		return Reply{kind: KindInt, n: n}, nil
	case []any:
		elems := make([]Reply, len(v))
		for i, e := range v {
			var err error
			if elems[i], err = toReply(e); err != nil {
				return Reply{}, err
			}
		}
		return Reply{kind: KindArray, a: elems}, nil
	}
	return Reply{}, malformed("unexpected JSON value: %T", v)
}

// decodeBase64 returns s decoded from base64. The status reply "OK" is sent as is
// (the official client special-cases it the same way; "OK" is never valid padded
// base64, so it is unambiguous), and a string that is not valid base64 is kept as
// sent, as the official client does.
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

// serverLine is what an error quotes of the body of an answer other than 200: the
// server's own error text when the body is an Upstash error ({"error": "..."}), on
// one bounded line; for any other body (a proxy's page, a bare text), only its
// length, as the body may echo what was sent or stored.
func serverLine(body []byte) string {
	var e envelope
	if json.Unmarshal(body, &e) == nil && e.Error != nil {
		return oneLine(*e.Error)
	}
	if len(body) == 0 {
		return "(empty body)"
	}
	return fmt.Sprintf("(a body of %d bytes that is not an Upstash error)", len(body))
}
