package limiter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseRuleErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"limit zero", `{"algorithm": "fixed_window", "limit": 0, "period": "1s"}`, "limit = 0: must be between 1 and 1000000000000"},
		{"limit above the bound", `{"algorithm": "fixed_window", "limit": 1000000000001, "period": "1s"}`, "limit = 1000000000001: must be between 1 and 1000000000000"},
		{"limit missing", `{"algorithm": "fixed_window", "period": "1s"}`, "limit = 0: must be between 1 and 1000000000000"},
		{"limit fractional", `{"algorithm": "fixed_window", "limit": 1.5, "period": "1s"}`, "limit = 1.5: must be a JSON integer"},
		{"limit exponent", `{"algorithm": "fixed_window", "limit": 1e3, "period": "1s"}`, "limit = 1e3: must be a JSON integer"},
		{"limit as a string", `{"algorithm": "fixed_window", "limit": "10", "period": "1s"}`, `limit = "10": must be a JSON integer`},
		{"unknown algorithm", `{"algorithm": "gcra", "limit": 1, "period": "1s"}`, `algorithm = "gcra": unknown: want one of`},
		{"algorithm missing", `{"limit": 1, "period": "1s"}`, "algorithm: is required"},
		{"unknown field", `{"algorithm": "fixed_window", "limit": 1, "period": "1s", "zone": "UTC"}`, "zone: unknown field"},
		{"period missing", `{"algorithm": "fixed_window", "limit": 1}`, "period: is required"},
		{"period unparsable", `{"algorithm": "fixed_window", "limit": 1, "period": "1 minute"}`, `period = "1 minute": not a duration`},
		{"period too short", `{"algorithm": "fixed_window", "limit": 1, "period": "500us"}`, `period = "500us": shorter than the minimum 1ms`},
		{"period too long", `{"algorithm": "fixed_window", "limit": 1, "period": "745h"}`, `period = "745h": longer than the maximum`},
		{"period not a string", `{"algorithm": "fixed_window", "limit": 1, "period": 60}`, `period = 60: must be a string`},
		{"calendar period on a bucket", `{"algorithm": "token_bucket", "limit": 1, "period": "day"}`, `period = "day": calendar periods are for fixed_window only`},
		{"burst on a window", `{"algorithm": "sliding_log", "limit": 1, "period": "1s", "burst": 2}`, "burst = 2: applies to token_bucket and leaky_bucket only"},
		{"burst zero", `{"algorithm": "token_bucket", "limit": 1, "period": "1s", "burst": 0}`, "burst = 0: must be between 1 and 1000000000000"},
		{"bucket refilling for centuries", `{"algorithm": "token_bucket", "limit": 1, "period": "744h", "burst": 1000}`, "burst = 1000: an empty bucket would take more than 10 years"},
		{"anchor on a bucket", `{"algorithm": "token_bucket", "limit": 1, "period": "1s", "anchor": "first_request"}`, `anchor = "first_request": applies to fixed_window only`},
		{"anchor with a calendar period", `{"algorithm": "fixed_window", "limit": 1, "period": "day", "anchor": "first_request"}`, `calendar periods start at local midnight`},
		{"unknown anchor", `{"algorithm": "fixed_window", "limit": 1, "period": "1s", "anchor": "midnight"}`, `anchor = "midnight": unknown`},
		{"name with a quote", `{"name": "a\"b", "algorithm": "fixed_window", "limit": 1, "period": "1s"}`, `name = "a\"b": may hold only letters`},
		{"not an object", `[1]`, "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRule([]byte(tt.json))
			if err == nil {
				t.Fatalf("ParseRule(%s) = nil error, want %q", tt.json, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseRule(%s) = %q, want it to contain %q", tt.json, err, tt.want)
			}
		})
	}
}

func TestParseRuleDefaultsAndRoundTrip(t *testing.T) {
	r, err := ParseRule([]byte(`{"algorithm": "token_bucket", "limit": 100, "period": "1m0s"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "token_bucket" || r.Burst != 100 || r.Period.Micros() != 60_000_000 {
		t.Fatalf("defaults: %+v", r)
	}
	out, _ := json.Marshal(r)
	if got, want := string(out), `{"name":"token_bucket","algorithm":"token_bucket","limit":100,"period":"1m","burst":100}`; got != want {
		t.Fatalf("JSON %s, want %s", got, want)
	}
}

func TestNewSetErrors(t *testing.T) {
	fw := Rule{Algorithm: FixedWindow, Limit: 1, Period: Calendar(Day)}
	if _, err := NewSet(nil, nil); err == nil || !strings.Contains(err.Error(), "at least one rule") {
		t.Errorf("empty set: %v", err)
	}
	if _, err := NewSet([]Rule{fw, fw}, nil); err == nil || !strings.Contains(err.Error(), `rules[1].name = "fixed_window": is already used`) {
		t.Errorf("duplicate default names: %v", err)
	}
	bad := fw
	bad.Limit = 0
	var fe *FieldError
	if _, err := NewSet([]Rule{fw, bad}, nil); !errors.As(err, &fe) || fe.Field != "rules[1].limit" {
		t.Errorf("field path: %v", err)
	}
	if _, err := NewSet(make([]Rule, MaxRules+1), nil); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Errorf("too many rules: %v", err)
	}
}

// TestCheckCostNamesTheFirstRuleExceeded: a set admits costs up to its least capacity,
// and a larger cost's error names the first rule, in order, that it exceeds.
func TestCheckCostNamesTheFirstRuleExceeded(t *testing.T) {
	s := mustSet(t, nil, `{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`,
		`{"algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 5}`,
		`{"algorithm": "sliding_window", "limit": 3, "period": "1s"}`)
	for _, tc := range []struct {
		cost int64
		want string // "" for no error
	}{
		{1, ""}, {3, ""}, {0, "cost 0"}, {-1, "cost -1"},
		{4, `cost 4 exceeds the capacity 3 of rule "sliding_window"`},
		{6, `cost 6 exceeds the capacity 5 of rule "token_bucket"`},
		{11, `cost 11 exceeds the capacity 10 of rule "fixed_window"`},
	} {
		err := s.CheckCost(tc.cost)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckCost(%d) = %v, want %q", tc.cost, err, tc.want)
		}
	}
}

func TestDecideInputErrorsChangeNothing(t *testing.T) {
	s := mustSet(t, nil, `{"algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 5}`)
	states := s.NewStates()
	if _, err := s.Decide(states, t0, 6); !errors.Is(err, ErrCostExceedsCapacity) || !strings.Contains(err.Error(), `cost 6 exceeds the capacity 5 of rule "token_bucket"`) {
		t.Errorf("cost above burst: %v", err)
	}
	if _, err := s.Decide(states, t0, 0); err == nil {
		t.Error("cost 0 accepted")
	}
	if _, err := s.Decide(states, -1, 1); !errors.Is(err, ErrTimeOutOfRange) {
		t.Errorf("negative time: %v", err)
	}
	if _, err := s.Decide(states, MaxTime+1, 1); !errors.Is(err, ErrTimeOutOfRange) {
		t.Errorf("time after 2200: %v", err)
	}
	if _, err := s.Decide(nil, t0, 1); !errors.Is(err, ErrStates) {
		t.Errorf("missing states: %v", err)
	}
	if st := states[0]; st.TAT != 0 || st.Last != 0 || st.TATFrac != 0 {
		t.Errorf("state changed by rejected input: %+v", states[0])
	}
}

func TestPeekConsumesNothing(t *testing.T) {
	s := mustSet(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 3, "period": "1s"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 1, "period": "1s", "burst": 2}`)
	states := s.NewStates()
	s.Decide(states, t0, 1)
	outs := make([]Outcome, 2)
	for range 3 {
		d, err := s.Peek(states, t0, outs)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed || d.Remaining != 1 || d.Rule != 1 || d.Limit != 2 {
			t.Fatalf("peek: %+v", d)
		}
	}
	if outs[0].Remaining != 2 || outs[1].Remaining != 1 {
		t.Fatalf("per-rule outcomes: %+v", outs)
	}
}

// TestCombine pins the rule-set decision: remaining is the minimum, retry-after the
// maximum over denying rules, reset the latest among denying rules (else the earliest).
func TestCombine(t *testing.T) {
	s := mustSet(t, nil, `{"name": "a", "algorithm": "fixed_window", "limit": 10, "period": "1s"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 1, "period": "1s", "burst": 5}`,
		`{"name": "c", "algorithm": "sliding_log", "limit": 7, "period": "1m"}`)
	denied := s.Combine([]Outcome{
		{Allowed: true, Remaining: 4, Reset: 100},
		{Remaining: 0, Reset: 300, RetryAfter: 20},
		{Remaining: 2, Reset: 200, RetryAfter: 50},
	})
	if want := (Decision{Rule: 2, Limit: 7, Remaining: 0, Reset: 300, RetryAfter: 50, RuleReset: 200}); denied != want {
		t.Errorf("denied: %+v, want %+v", denied, want)
	}
	allowed := s.Combine([]Outcome{
		{Allowed: true, Remaining: 4, Reset: 100},
		{Allowed: true, Remaining: 1, Reset: 300, Delay: 9},
		{Allowed: true, Remaining: 2, Reset: 50},
	})
	if want := (Decision{Allowed: true, Rule: 1, Limit: 5, Remaining: 1, Reset: 50, Delay: 9, RuleReset: 300}); allowed != want {
		t.Errorf("allowed: %+v, want %+v", allowed, want)
	}
}

// FuzzParseRule: any input either fails with an error or yields a valid rule that
// survives a JSON round trip unchanged. Seeds are in testdata/fuzz/FuzzParseRule.
func FuzzParseRule(f *testing.F) {
	f.Add([]byte(`{"name": "burst", "algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRule(data)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("ParseRule accepted %q but Validate says %v", data, err)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRule(out)
		if err != nil || back != r {
			t.Fatalf("round trip of %s: %+v, %v; want %+v", out, back, err, r)
		}
		if _, err := NewSet([]Rule{r}, nil); err != nil {
			t.Fatalf("valid rule %+v rejected by NewSet: %v", r, err)
		}
	})
}

// TestBadPeriodErrorIsWhole: a period error gives the reason once, after the value,
// even when the value holds a quote and a space (the reason was cut at the first `" `
// inside the value: `period = "a\" b": b" is not a duration ...`).
func TestBadPeriodErrorIsWhole(t *testing.T) {
	for _, period := range []string{`"fortnight"`, `"a\" b"`, `"\" is \""`} {
		var r Rule
		err := json.Unmarshal([]byte(`{"algorithm": "fixed_window", "limit": 1, "period": `+period+`}`), &r)
		want := "period = " + period + ": not a duration"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("period %s: %v, want an error starting %q", period, err, want)
		}
	}
}
