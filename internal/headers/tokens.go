package headers

import (
	"net/http"
	"strconv"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// The fields of a rule that counts tokens (limiter.UnitTokens), as OpenAI's API sends
// them and LLM clients read them.
const (
	LimitTokensField     = "X-Ratelimit-Limit-Tokens"     // canonical form of x-ratelimit-limit-tokens
	RemainingTokensField = "X-Ratelimit-Remaining-Tokens" // x-ratelimit-remaining-tokens
	ResetTokensField     = "X-Ratelimit-Reset-Tokens"     // x-ratelimit-reset-tokens
)

// writeTokens sets the token fields of res on h, beside the others, when a check of res
// reports a rule counting tokens (the first such check, route first): its capacity,
// what it has left, and the time until it is full again as a Go duration ("6m0s",
// "1s", "20ms": OpenAI's format), rounded up to the millisecond.
func writeTokens(h http.Header, res gate.Result) {
	for i, c := range res.Checks {
		if d, ok := res.CheckDecision(i); ok && countsTokens(c.Set, d) {
			setTokens(h, d, res.Now)
			return
		}
	}
	if res.Set != nil && countsTokens(res.Set, res.Decision) { // the denial cache's answer
		setTokens(h, res.Decision, res.Now)
	}
}

// countsTokens reports whether d reports a rule of set that counts tokens.
func countsTokens(set *limiter.Set, d limiter.Decision) bool {
	return d.Rule >= 0 && d.Rule < set.Len() && set.Rule(d.Rule).Unit == limiter.UnitTokens
}

// setTokens sets the token fields of d at now.
func setTokens(h http.Header, d limiter.Decision, now int64) {
	reset := time.Duration(limiter.CeilMillis(max(d.Reset-now, 0))) * time.Millisecond
	h.Set(LimitTokensField, strconv.FormatInt(d.Limit, 10))
	h.Set(RemainingTokensField, strconv.FormatInt(max(d.Remaining, 0), 10))
	h.Set(ResetTokensField, reset.String())
}
