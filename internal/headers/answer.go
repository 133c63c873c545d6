package headers

import (
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

// For returns the answer to res: see "Answers" in the package doc.
func For(res gate.Result) Answer {
	switch res.Status {
	case gate.Denied:
		return Deny(res)
	case gate.Unauthorized:
		return message(http.StatusUnauthorized, unauthorizedBody)
	}
	a := Answer{Header: http.Header{}}
	switch {
	case res.FailOpen:
		a.Header.Set(FailField, FailOpen) // nothing was counted
	case res.Set != nil:
		Write(a.Header, res.Set, res.Decision, res.Now, res.Policies()...)
	}
	return a
}

// Deny returns the 429 of res's decision, whatever res.Status says (the middleware
// also refuses an admitted request whose leaky-bucket delay it will not wait): the
// fields and body of Denied.
func Deny(res gate.Result) Answer {
	a := Answer{Status: http.StatusTooManyRequests, Header: http.Header{}}
	a.Body = Denied(a.Header, res.Set, res.Decision, res.Now, res.Policies()...)
	return a
}

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
	for k, vals := range a.Header {
		w.Header()[k] = vals
	}
	if a.Status == 0 {
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body) // an error means the client has gone
}
