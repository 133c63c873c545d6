package headers_test

import (
	"net/http/httptest"
	"testing"

	"github.com/edgelimit/edgelimit/internal/headers"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// A 401 names the key's header and the gate's reason in its challenge, quoted as
// RFC 9110 quoted strings ('"' and '\' escaped), with API Gateway's body; For gives it
// to an Unauthorized result, and Write sends it with its Content-Length.
func TestUnauthorized(t *testing.T) {
	cases := []struct{ reason, keyHeader, want string }{
		{"missing API key", "x-api-key", `APIKey realm="edgelimit", header="x-api-key", error_description="missing API key"`},
		{`a "quoted" \ reason`, "Authorization", `APIKey realm="edgelimit", header="Authorization", error_description="a \"quoted\" \\ reason"`},
		{"", "x-key", `APIKey realm="edgelimit", header="x-key"`},
	}
	for _, tc := range cases {
		a := headers.For(gate.Result{Status: gate.Unauthorized, Reason: tc.reason}, tc.keyHeader)
		rec := httptest.NewRecorder()
		a.Write(rec)
		if rec.Code != 401 || rec.Body.String() != `{"message":"Unauthorized"}` || rec.Header().Get("WWW-Authenticate") != tc.want ||
			rec.Header().Get("Content-Type") != "application/json" || rec.Header().Get("Content-Length") != "26" {
			t.Errorf("reason %q: %d %v %s; want WWW-Authenticate %s", tc.reason, rec.Code, rec.Header(), rec.Body, tc.want)
		}
	}
}
