package authorizer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/authorizer"
)

// decodedAnswer answers payload as REST, Token, HTTP or HTTPIAM would after decoding it into
// aws-lambda-go's type, and returns what encoding/json makes of the response.
func decodedAnswer(t *testing.T, h *authorizer.Handler, mode authorizer.HTTPResponse, payload []byte) ([]byte, error) {
	t.Helper()
	var probe struct{ Type, Version string }
	_ = json.Unmarshal(payload, &probe)
	var (
		resp any
		err  error
	)
	switch {
	case probe.Type == "TOKEN":
		var ev events.APIGatewayCustomAuthorizerRequest
		_ = json.Unmarshal(payload, &ev)
		resp, err = h.Token(context.Background(), ev)
	case probe.Version != "2.0":
		var ev events.APIGatewayCustomAuthorizerRequestTypeRequest
		_ = json.Unmarshal(payload, &ev)
		resp, err = h.REST(context.Background(), ev)
	case mode == authorizer.IAMResponse:
		var ev events.APIGatewayV2CustomAuthorizerV2Request
		_ = json.Unmarshal(payload, &ev)
		resp, err = h.HTTPIAM(context.Background(), ev)
	default:
		var ev events.APIGatewayV2CustomAuthorizerV2Request
		_ = json.Unmarshal(payload, &ev)
		resp, err = h.HTTP(context.Background(), ev)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

// Invoke, which decodes the raw event once into one struct of every kind's members,
// answers byte for byte what encoding/json writes for the response REST, Token, HTTP
// or HTTPIAM returns for the event decoded into its own aws-lambda-go type, for every
// sample event in both HTTP API modes, allowed and then denied (seven requests within
// demo's burst of five), failing open and closed, with usageIdentifierKey, and with
// ARNs that encoding/json escapes.
func TestInvokeAnswersAsTheDecodedEvent(t *testing.T) {
	escaped := func(s string) string {
		return strings.Replace(s, `/GET/hello"`, `/GET/h<e>&llo\u00e9\u2028\""`, 1)
	}
	for _, file := range eventFiles(t) {
		for _, mode := range []authorizer.HTTPResponse{authorizer.SimpleResponse, authorizer.IAMResponse} {
			for _, edit := range []func(string) string{func(s string) string { return s }, escaped} {
				payload := []byte(edit(string(readFile(t, file))))
				fast, decoded := newHarness(t, mode, nil), newHarness(t, mode, nil)
				for i := range 7 {
					want, werr := decodedAnswer(t, decoded.h, mode, payload)
					got, err := fast.invoke(t, payload)
					if !bytes.Equal(got, want) || (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
						t.Fatalf("%s (%s), request %d:\n got %s (%v)\nwant %s (%v)", file, mode, i+1, got, err, want, werr)
					}
				}
			}
		}
	}
	for _, store := range []struct {
		name string
		h    func(*harness) *authorizer.Handler
	}{{"failing store", func(*harness) *authorizer.Handler {
		return newHarness(t, "", failingStore{}).h
	}}, {"usageIdentifierKey", func(hs *harness) *authorizer.Handler {
		h, err := authorizer.New(authorizer.Config{Gate: gateOf(t, hs), UsageIdentifier: authorizer.UsageAPIKey,
			Metrics: io.Discard, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}}} {
		for _, key := range []string{demoKey, partnerKey} {
			payload := restWithKey(t, key)
			fast, decoded := store.h(newHarness(t, "", nil)), store.h(newHarness(t, "", nil))
			want, _ := decodedAnswer(t, decoded, "", payload)
			got, err := fast.Invoke(context.Background(), payload)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s, key of %s:\n got %s (%v)\nwant %s", store.name, key[:12], got, err, want)
			}
		}
	}
}
