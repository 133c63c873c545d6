package limiter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Algorithm names a rate-limiting algorithm as it appears in Rule JSON.
type Algorithm string

// The algorithms.
const (
	FixedWindow   Algorithm = "fixed_window"
	SlidingLog    Algorithm = "sliding_log"
	SlidingWindow Algorithm = "sliding_window"
	TokenBucket   Algorithm = "token_bucket"
	LeakyBucket   Algorithm = "leaky_bucket"
	// Concurrency limits requests in flight: see ConcurrencyLease.
	Concurrency Algorithm = "concurrency"
)

// Anchor says where a fixed window starts.
type Anchor string

// The anchors. The zero Anchor aligns windows to the Unix epoch (or to local
// midnight for calendar periods).
const (
	AnchorEpoch        Anchor = ""
	AnchorFirstRequest Anchor = "first_request"
)

// Rule bounds: see the package doc, and docs/design.md (Rules) for how each backend
// stays exact within them.
const (
	// MaxLimit bounds limit and burst, and so a request's cost: 10^12, which holds a
	// month of two billion tokens with room to spare.
	MaxLimit = 1_000_000_000_000
	// MaxFillMicros bounds burst*period/limit, the time an empty bucket takes to refill.
	MaxFillMicros int64 = 3650 * 24 * 3600 * microsPerSecond
	maxNameLen          = 64
)

// Rule is one rate limit. Its JSON form is the public contract:
//
//	{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}
//	{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"}
//
// Scope says whose requests one counter of the rule counts (see Scope); the limiter
// itself ignores it, and tenants fill in its default.
//
// Name is optional (default: the algorithm's name) and unique within a Set; it is made
// of letters, digits, '_', '-' and '.', at most 64 bytes. Limit and Burst are JSON
// integers from 1 to MaxLimit. Burst is for the buckets only (default Limit). Period is
// a duration, or day/week/month for fixed_window only; a concurrency rule has none and
// a Lease instead (see DefaultLease). Anchor "first_request" opens a fixed window at
// the first allowed request after the previous one ended.
type Rule struct {
	Name      string    `json:"name,omitempty"`
	Algorithm Algorithm `json:"algorithm"`
	Limit     int64     `json:"limit"`
	Period    Period    `json:"period,omitzero"`
	Burst     int64     `json:"burst,omitempty"`
	Anchor    Anchor    `json:"anchor,omitempty"`
	Scope     Scope     `json:"scope,omitempty"`
	// Lease is a concurrency rule's lease (default DefaultLease): how long a slot is
	// held by a request that is never settled.
	Lease Period `json:"lease,omitzero"`
	// Unit is what the rule counts (see CountUnit): "tokens" or, by default, requests.
	Unit CountUnit `json:"unit,omitempty"`
}

// IsBucket reports whether the rule is a token or leaky bucket.
func (r Rule) IsBucket() bool { return r.Algorithm == TokenBucket || r.Algorithm == LeakyBucket }

// Capacity is the most the rule admits at once: Burst for the buckets (Limit when
// unset), Limit otherwise. A request of greater cost could never be allowed.
func (r Rule) Capacity() int64 {
	if r.IsBucket() && r.Burst != 0 {
		return r.Burst
	}
	return r.Limit
}

// Normalized returns the rule with its defaults filled in: the name, and the burst of
// a bucket.
func (r Rule) Normalized() Rule {
	if r.Name == "" {
		r.Name = string(r.Algorithm)
	}
	if r.IsBucket() && r.Burst == 0 {
		r.Burst = r.Limit
	}
	if r.Algorithm == Concurrency && r.Lease.IsZero() {
		r.Lease = Every(DefaultLease)
	}
	return r
}

// Validate checks the rule against the contract and its bounds. The error is a
// *FieldError naming the field, the value and the reason.
func (r Rule) Validate() error {
	if err := validateName(r.Name); err != nil {
		return err
	}
	if err := r.validateUnit(); err != nil {
		return err
	}
	switch r.Algorithm {
	case FixedWindow, SlidingLog, SlidingWindow, TokenBucket, LeakyBucket:
		if !r.Lease.IsZero() {
			return &FieldError{Field: "lease", Value: strconv.Quote(r.Lease.String()), Reason: "applies to concurrency only"}
		}
	case Concurrency:
		return r.validateConcurrency()
	case "":
		return &FieldError{Field: "algorithm", Reason: "is required: one of " + algorithmList}
	default:
		return &FieldError{Field: "algorithm", Value: strconv.Quote(string(r.Algorithm)), Reason: "unknown: want one of " + algorithmList}
	}
	if err := checkCount("limit", r.Limit); err != nil {
		return err
	}
	if err := r.validatePeriod(); err != nil {
		return err
	}
	if err := r.validateBurst(); err != nil {
		return err
	}
	if err := r.validateAnchor(); err != nil {
		return err
	}
	return r.Scope.validate()
}

const algorithmList = "fixed_window, sliding_log, sliding_window, token_bucket, leaky_bucket, concurrency"

func validateName(name string) error {
	if len(name) > maxNameLen {
		return &FieldError{Field: "name", Value: strconv.Quote(name), Reason: fmt.Sprintf("is longer than %d bytes", maxNameLen)}
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return &FieldError{Field: "name", Value: strconv.Quote(name), Reason: "may hold only letters, digits, '_', '-' and '.'"}
		}
	}
	return nil
}

func checkCount(field string, n int64) error {
	if n < 1 || n > MaxLimit {
		return &FieldError{Field: field, Value: strconv.FormatInt(n, 10), Reason: fmt.Sprintf("must be between 1 and %d", MaxLimit)}
	}
	return nil
}

func (r Rule) validatePeriod() error {
	switch {
	case r.Period.IsZero():
		return &FieldError{Field: "period", Reason: "is required: a duration such as \"1s\", or day, week, month"}
	case r.Period.IsCalendar() && r.Algorithm != FixedWindow:
		return &FieldError{Field: "period", Value: strconv.Quote(r.Period.String()), Reason: "calendar periods are for fixed_window only; use a duration such as \"24h\""}
	case !r.Period.IsCalendar():
		if _, err := ParsePeriod(r.Period.String()); err != nil {
			return &FieldError{Field: "period", Value: strconv.Quote(r.Period.String()), Reason: strings.TrimPrefix(err.Error(), "is ")}
		}
	}
	return nil
}

func (r Rule) validateBurst() error {
	if !r.IsBucket() {
		if r.Burst != 0 {
			return &FieldError{Field: "burst", Value: strconv.FormatInt(r.Burst, 10), Reason: "applies to token_bucket and leaky_bucket only"}
		}
		return nil
	}
	burst := r.Capacity()
	if err := checkCount("burst", burst); err != nil {
		return err
	}
	if fill := mulDiv(burst, r.Period.Micros(), r.Limit); fill > MaxFillMicros {
		return &FieldError{Field: "burst", Value: strconv.FormatInt(burst, 10),
			Reason: "an empty bucket would take more than 10 years to refill (burst x period / limit)"}
	}
	return nil
}

func (r Rule) validateAnchor() error {
	switch r.Anchor {
	case AnchorEpoch:
		return nil
	case AnchorFirstRequest:
		if r.Algorithm != FixedWindow {
			return &FieldError{Field: "anchor", Value: strconv.Quote(string(r.Anchor)), Reason: "applies to fixed_window only"}
		}
		if r.Period.IsCalendar() {
			return &FieldError{Field: "anchor", Value: strconv.Quote(string(r.Anchor)), Reason: "calendar periods start at local midnight; use a duration period"}
		}
		return nil
	}
	return &FieldError{Field: "anchor", Value: strconv.Quote(string(r.Anchor)), Reason: "unknown: the only anchor is \"first_request\" (omit it for epoch-aligned windows)"}
}

// ruleJSON mirrors Rule for strict decoding: integers stay raw so that 1.5, 1e3 and
// "10" are rejected rather than rounded or coerced.
type ruleJSON struct {
	Name      string           `json:"name"`
	Algorithm string           `json:"algorithm"`
	Limit     *json.RawMessage `json:"limit"`
	Period    *json.RawMessage `json:"period"`
	Burst     *json.RawMessage `json:"burst"`
	Anchor    string           `json:"anchor"`
	Scope     string           `json:"scope"`
	Lease     *json.RawMessage `json:"lease"`
	Unit      string           `json:"unit"`
}

// UnmarshalJSON decodes a rule strictly (unknown fields and non-integer counts are
// errors) and validates it. Defaults are not filled in: see Normalized.
func (r *Rule) UnmarshalJSON(data []byte) error {
	var raw ruleJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return jsonFieldError(err)
	}
	out := Rule{Name: raw.Name, Algorithm: Algorithm(raw.Algorithm), Anchor: Anchor(raw.Anchor),
		Scope: Scope(raw.Scope), Unit: CountUnit(raw.Unit)}
	var err error
	if out.Limit, err = decodeCount("limit", raw.Limit); err != nil {
		return err
	}
	if raw.Burst != nil {
		if out.Burst, err = decodeCount("burst", raw.Burst); err != nil {
			return err
		}
		// An explicit burst, even 0, is checked as given rather than taken as unset.
		if !out.IsBucket() {
			return &FieldError{Field: "burst", Value: string(*raw.Burst), Reason: "applies to token_bucket and leaky_bucket only"}
		}
		if err := checkCount("burst", out.Burst); err != nil {
			return err
		}
	}
	if raw.Period != nil {
		if err := out.Period.UnmarshalJSON(*raw.Period); err != nil {
			return &FieldError{Field: "period", Value: string(*raw.Period), Reason: trimQuoted(err.Error())}
		}
	}
	if raw.Lease != nil {
		if err := out.Lease.UnmarshalJSON(*raw.Lease); err != nil {
			return &FieldError{Field: "lease", Value: string(*raw.Lease), Reason: trimQuoted(err.Error())}
		}
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*r = out
	return nil
}

// trimQuoted drops a leading quoted value from a period error (Period.UnmarshalJSON's
// %q), which FieldError already shows.
func trimQuoted(msg string) string {
	if quoted, err := strconv.QuotedPrefix(msg); err == nil {
		return strings.TrimPrefix(strings.TrimPrefix(msg[len(quoted):], " "), "is ")
	}
	return msg
}

func decodeCount(field string, raw *json.RawMessage) (int64, error) {
	if raw == nil {
		return 0, nil // Validate reports a missing limit
	}
	text := string(*raw)
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, &FieldError{Field: field, Value: text, Reason: "must be a JSON integer"}
	}
	return n, nil
}

// jsonFieldError turns an encoding/json error into a FieldError where it names a field.
func jsonFieldError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &FieldError{Field: strings.Trim(name, "\""), Reason: "unknown field: a rule has name, algorithm, limit, period, burst, anchor, scope, lease"}
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && te.Field != "" {
		return &FieldError{Field: te.Field, Reason: "must be a JSON " + te.Type.String()}
	}
	return fmt.Errorf("rule: invalid JSON: %w", err)
}

// ParseRule decodes and validates one rule from JSON and fills in its defaults.
func ParseRule(data []byte) (Rule, error) {
	var r Rule
	if err := json.Unmarshal(data, &r); err != nil {
		return Rule{}, err
	}
	return r.Normalized(), nil
}
