package limiter

import "strconv"

// CountUnit says what a rule's limit counts: requests (the default, "") or tokens,
// the cost an LLM API's responses report. The limiter counts both alike; the unit only
// tells the rate-limit headers to also describe the rule as OpenAI's clients read it
// (x-ratelimit-limit-tokens, x-ratelimit-remaining-tokens, x-ratelimit-reset-tokens).
type CountUnit string

// The count units.
const (
	UnitRequests CountUnit = ""       // the default
	UnitTokens   CountUnit = "tokens" // the rule's costs are tokens
)

// validateUnit checks r.Unit: "" or "tokens", and not on a concurrency rule, whose
// slots are requests whatever their cost.
func (r Rule) validateUnit() error {
	switch {
	case r.Unit == UnitRequests:
		return nil
	case r.Unit != UnitTokens:
		return &FieldError{Field: "unit", Value: strconv.Quote(string(r.Unit)), Reason: `unknown: the only unit is "tokens" (omit it for requests)`}
	case r.Algorithm == Concurrency:
		return &FieldError{Field: "unit", Value: `"tokens"`, Reason: "a concurrency rule counts requests in flight, not tokens"}
	}
	return nil
}
