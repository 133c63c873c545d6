package request_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/request"
)

// corpus returns every file of events/ (authorizer and admin events alike) and
// generated events: each event file under every edit of variants, and the events of
// generated.
func corpus(t testing.TB) [][]byte {
	t.Helper()
	files, err := filepath.Glob("../../events/*/*.json")
	if err != nil || len(files) < 20 {
		t.Fatalf("%d files in events/ (%v), want at least 20", len(files), err)
	}
	var out [][]byte
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		for _, edit := range variants {
			out = append(out, []byte(edit(string(b))))
		}
	}
	return append(out, generated()...)
}

// generated returns events of both kinds built from their parts: the key header in
// several spellings, repeated, padded and in the multi-value map; members in other
// cases; nulls; and escaped strings.
func generated() [][]byte {
	names := []string{"x-api-key", "X-Api-Key", "X-API-KEY", `x-api-k\u0065y`}
	values := []string{"elk_a", " elk_b\t", "", `elk_\u00e9`, `elk_"q\"`}
	var out [][]byte
	for i := range 80 {
		name, value := names[i%len(names)], values[i/len(names)%len(values)]
		headers := fmt.Sprintf(`{%q: "elk_first", "%s": "%s"}`, names[(i+1)%len(names)], name, value)
		if i%3 == 0 {
			headers = "null"
		}
		ctx := `"requestContext": {"requestId": "r%d", "identity": {"sourceIp": "192.0.2.%d"}, "http": {"method": "POST", "sourceIp": "2001:db8::%d"}, "resourcePath": "/p", "routeKey": "GET /k"}`
		rest := fmt.Sprintf(`{"type": "REQUEST", "methodArn": "arn:%d", "httpMethod": "GET", "resource": "/r", "headers": %s, "multiValueHeaders": {"%s": ["elk_multi", "elk_2"]}, `+ctx+`}`,
			i, headers, name, i, i, i)
		http := fmt.Sprintf(`{"version": "2.0", "type": "REQUEST", "routeArn": "arn:%d", "routeKey": "GET /v2", "headers": %s, `+ctx+`}`, i, headers, i, i, i)
		if i%4 == 1 {
			rest = strings.Replace(rest, `"httpMethod"`, `"HttpMethod"`, 1)
			http = strings.Replace(http, `"requestContext"`, `"REQUESTCONTEXT"`, 1)
		}
		out = append(out, []byte(rest), []byte(http))
	}
	return out
}

// FuzzSideBySide holds DecodeAuthorizerEvent (encoding/json into aws-lambda-go's
// types) to ParseAuthorizerEvent (the one-pass scanner) on any payload: where both
// accept it they give the same kind, identity, route, key, method, address, ARN and
// request id; the decoder accepts nothing the scanner refuses; and it refuses what the
// scanner accepts only for a member of the event's type that holds the wrong JSON type
// (which the scanner skips unread: encoding/json's rule is the right one there).
func FuzzSideBySide(f *testing.F) {
	for _, payload := range corpus(f) {
		f.Add(payload)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		for _, header := range []string{"x-api-key", "Authorization"} {
			old, oerr := request.ParseAuthorizerEvent(payload, header)
			got, err := request.DecodeAuthorizerEvent(payload, header)
			if msg := sideBySide(old, oerr, got, err); msg != "" {
				t.Fatalf("header %s, payload %q: %s", header, payload, msg)
			}
		}
	})
}

// sideBySide returns what differs between the scanner's reading (old, oerr) and the
// decoder's (got, err), or "".
func sideBySide(old request.AuthorizerEvent, oerr error, got request.AuthorizerEvent, err error) string {
	var typeErr *json.UnmarshalTypeError
	switch {
	case err != nil && !strings.HasPrefix(err.Error(), "authorizer: "):
		return fmt.Sprintf("error %q does not say where it comes from", err)
	case errors.Is(oerr, request.ErrTokenEvent) != errors.Is(err, request.ErrTokenEvent):
		return fmt.Sprintf("TOKEN: scanner %v, decoder %v", oerr, err)
	case oerr != nil && err == nil:
		return fmt.Sprintf("the decoder accepts what the scanner refuses (%v): %+v", oerr, got)
	case oerr == nil && err != nil && !errors.As(errors.Unwrap(err), &typeErr) && !strings.Contains(err.Error(), "wrong JSON type"):
		return fmt.Sprintf("the decoder refuses (%v) what the scanner reads as %+v", err, old)
	case oerr == nil && err == nil && got != old:
		return fmt.Sprintf("decoder %+v, scanner %+v", got, old)
	}
	return ""
}

// Every file of events/ and every generated event reads alike through the scanner and
// the decoder (FuzzSideBySide's rule, on its seed corpus alone).
func TestSideBySide(t *testing.T) {
	n := 0
	for _, payload := range corpus(t) {
		for _, header := range []string{"x-api-key", "Authorization"} {
			old, oerr := request.ParseAuthorizerEvent(payload, header)
			got, err := request.DecodeAuthorizerEvent(payload, header)
			if msg := sideBySide(old, oerr, got, err); msg != "" {
				t.Errorf("header %s, payload %s: %s", header, payload, msg)
			}
			if err == nil {
				n++
			}
		}
	}
	if n < 100 {
		t.Errorf("%d events decoded, want at least 100", n)
	}
}
