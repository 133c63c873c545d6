package headers

import (
	"maps"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// Answer is an HTTP answer: a status, header fields and a body. Status 0 means the
// request goes on to its handler, with Header added to the handler's response.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

var (
	unauthorizedBody = []byte(`{"message":"Unauthorized"}`)
	internalBody     = []byte(`{"message":"Internal Server Error"}`)
)

// For returns the answer to res: see "Answers" in the package doc. keyHeader is the
// header the API key goes in (gate.Gate.KeyHeader), which a 401 names.
func For(res gate.Result, keyHeader string) Answer {
	switch res.Status {
	case gate.Denied:
		return Deny(res)
	case gate.Unauthorized:
		return Unauthorized(res, keyHeader)
	}
	a := Answer{Header: http.Header{}}
	switch {
	case res.FailOpen:
		a.Header.Set(FailField, FailOpen) // nothing was counted
	case res.Set != nil:
		Write(a.Header, res.Set, res.Decision, res.Now, res.Policies()...)
		writeTokens(a.Header, res)
	}
	return a
}

// Deny returns the 429 of res's decision, whatever res.Status says (the middleware
// also refuses an admitted request whose leaky-bucket delay it will not wait): the
// fields and body of Denied.
func Deny(res gate.Result) Answer {
	a := Answer{Status: http.StatusTooManyRequests, Header: http.Header{}}
	a.Body = Denied(a.Header, res.Set, res.Decision, res.Now, res.Policies()...)
	writeTokens(a.Header, res)
	return a
}

// Unauthorized returns the 401 of res: the body {"message":"Unauthorized"} and a
// WWW-Authenticate challenge (RFC 9110, section 11.6.1) that names the header the key
// goes in and says why, res.Reason (the gate's reason, which never holds the key):
//
//	WWW-Authenticate: APIKey realm="edgelimit", header="x-api-key", error_description="missing API key"
func Unauthorized(res gate.Result, keyHeader string) Answer {
	a := message(http.StatusUnauthorized, unauthorizedBody)
	b := append(make([]byte, 0, 128), `APIKey realm="edgelimit", header=`...)
	b = appendString(b, keyHeader)
	if res.Reason != "" {
		b = appendString(append(b, ", error_description="...), res.Reason)
	}
	a.Header.Set(challengeField, string(b))
	return a
}

// challengeField is the field of a 401's challenge.
const challengeField = "Www-Authenticate" // canonical form of WWW-Authenticate

// Internal returns the 500 of a gate error.
func Internal() Answer { return message(http.StatusInternalServerError, internalBody) }

func message(status int, body []byte) Answer {
	a := Answer{Status: status, Header: http.Header{}, Body: body}
	a.Header.Set("Content-Type", "application/json")
	return a
}

// Write sends the answer on w: its header fields, and when Status is not 0,
// Content-Length, the status and the body.
func (a Answer) Write(w http.ResponseWriter) {
	maps.Copy(w.Header(), a.Header)
	if a.Status == 0 {
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body) // an error means the client has gone
}
