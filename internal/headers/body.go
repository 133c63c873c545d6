package headers

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Denial is the JSON body of a 429 response. It keeps the shape of the bodies API
// Gateway writes for its own errors, {"message": "..."}, so that a client reads one
// shape whichever layer turned it away, and adds the numbers of the decision under the
// snake_case names the rest of edgelimit's JSON uses:
//
//	{"message":"Too Many Requests","retry_after":1,"limit":500,"remaining":0,"reset":1796040005,"rule":"burst","fail_closed":false}
//
// Each number is the value of the header field named beside it, so the body and the
// fields never disagree.
type Denial struct {
	// Message is http.StatusText(429), "Too Many Requests".
	Message string `json:"message"`
	// RetryAfter is Retry-After: whole seconds until a retry may be allowed, rounded
	// up, at least 1 (0 only if the decision was in fact allowed).
	RetryAfter int64 `json:"retry_after"`
	// Limit is X-RateLimit-Limit: the capacity of Rule (its limit, or its burst).
	Limit int64 `json:"limit"`
	// Remaining is X-RateLimit-Remaining: what the rule set still admits now.
	Remaining int64 `json:"remaining"`
	// Reset is X-RateLimit-Reset: when the denying rules are back to full, in seconds
	// since the Unix epoch, rounded up.
	Reset int64 `json:"reset"`
	// Rule is the name of the rule that denied (the item of the RateLimit field): the
	// one with the longest wait when several did.
	Rule string `json:"rule"`
	// FailClosed is set when no rule denied: the limiter's store failed and the
	// tenant's fail mode, closed, refused the request (X-RateLimit-Fail: closed). Limit
	// and Remaining are then 0 and Rule is "": nothing was counted.
	FailClosed bool `json:"fail_closed"`
}

// NewDenial returns the body fields for decision d of set at instant now. A nil set
// means that no rule set decided: the fail mode refused the request (FailClosed).
func NewDenial(set *limiter.Set, d limiter.Decision, now int64) Denial {
	var rule string
	if set != nil && d.Rule >= 0 && d.Rule < set.Len() {
		rule = set.Rule(d.Rule).Name
	}
	return Denial{
		Message:    http.StatusText(http.StatusTooManyRequests),
		RetryAfter: retryAfter(d),
		Limit:      d.Limit,
		Remaining:  d.Remaining,
		Reset:      limiter.CeilSeconds(d.Reset),
		Rule:       rule,
		FailClosed: set == nil,
	}
}

// Body returns the JSON of NewDenial(set, d, now), without a trailing newline.
func Body(set *limiter.Set, d limiter.Decision, now int64) []byte {
	b, err := json.Marshal(NewDenial(set, d, now))
	if err != nil { // strings and integers only: unreachable
		return []byte(`{"message":"Too Many Requests"}`)
	}
	return b
}

// Denied prepares on h the answer to a denied request, every 429 edgelimit writes
// itself (the middleware's, `edgelimit dev`'s): the fields of Write, Content-Type
// application/json and Cache-Control no-store (a 429 is about this moment), and
// returns its body, Body. A nil set means that no rule set decided: the store failed
// and the fail mode refused the request. Then only Retry-After and X-RateLimit-Fail:
// closed are set, and the body says fail_closed: nothing pretends a count. The caller
// sends the status 429 and the body (WriteDenied
// does, on an http.ResponseWriter; Lambda handlers put them in their event response).
// policies are the sets of every counter of the request, as for Write.
func Denied(h http.Header, set *limiter.Set, d limiter.Decision, now int64, policies ...*limiter.Set) []byte {
	if set != nil {
		Write(h, set, d, now, policies...)
	} else {
		h.Set("Retry-After", strconv.FormatInt(retryAfter(d), 10))
		h.Set(FailField, FailClosed)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	return Body(set, d, now)
}

// WriteDenied answers a denied request: the header fields of Denied, Content-Length,
// the status 429 Too Many Requests, and Body, written by Answer.Write. It is meant for
// denials; given an allowed decision (say, a leaky-bucket Delay longer than the caller
// will wait) it still answers 429, without Retry-After.
func WriteDenied(w http.ResponseWriter, set *limiter.Set, d limiter.Decision, now int64) {
	a := Answer{Status: http.StatusTooManyRequests, Header: http.Header{}}
	a.Body = Denied(a.Header, set, d, now)
	a.Write(w)
}
