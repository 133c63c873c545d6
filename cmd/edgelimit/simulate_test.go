package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const sampleTrace = "../../examples/traces/burst.csv"

// TestSimulateGolden runs `edgelimit simulate` on the sample trace with each algorithm
// and compares stdout with testdata/simulate/NAME.golden (go test -update rewrites them).
func TestSimulateGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"fixed_window", []string{"--rule", `{"algorithm": "fixed_window", "limit": 10, "period": "1s"}`}},
		{"sliding_log", []string{"--rule", `{"algorithm": "sliding_log", "limit": 10, "period": "1s"}`}},
		{"sliding_window", []string{"--rule", `{"algorithm": "sliding_window", "limit": 10, "period": "1s"}`}},
		{"token_bucket", []string{"--rule", `{"algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 10}`}},
		{"leaky_bucket", []string{"--rule", `{"algorithm": "leaky_bucket", "limit": 5, "period": "1s", "burst": 10}`}},
		{"rule_set_daily_tokyo", []string{"--timezone", "Asia/Tokyo",
			"--rule", `{"name": "burst", "algorithm": "token_bucket", "limit": 5, "period": "1s", "burst": 10}`,
			"--rule", `{"name": "daily", "algorithm": "fixed_window", "limit": 12, "period": "day"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"simulate", "--trace", sampleTrace}, tt.args...)
			if code := run(args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			golden := filepath.Join("testdata", "simulate", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if stdout.String() != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, stdout.String())
			}
		})
	}
}

// TestSimulateErrors pins the error contract: `line N: reason` on stderr, nothing on
// stdout, exit code 2, and the whole input validated before anything is printed.
func TestSimulateErrors(t *testing.T) {
	rule := []string{"--rule", `{"algorithm": "fixed_window", "limit": 2, "period": "1s"}`}
	tests := []struct {
		name, trace string
		args        []string
		wantStderr  string
	}{
		{"decreasing time on a late line", "1\n2\n3\n4\n2.5\n", rule, "line 5: time 2.500000 is before the previous line's 4.000000"},
		{"bad time", "1\n# note\n\nyesterday\n", rule, `line 4: time "yesterday": want decimal seconds`},
		{"negative time", "-5\n", rule, `line 1: time "-5"`},
		{"too many fields", "1,a,1,192.0.2.1,x\n", rule, "line 1: 5 fields: want TIME[,KEY[,COST[,ADDR]]]"},
		{"bad address", "1,a,1,192.0.2\n", rule, `line 1: address "192.0.2": want an IPv4 or IPv6 address`},
		{"cost zero", "1,a,0\n", rule, `line 1: cost "0": want an integer >= 1`},
		{"cost never allowed", "1,a,3\n", rule, `line 1: cost 3 exceeds the capacity 2 of rule "fixed_window"`},
		{"bad rule", "1\n", []string{"--rule", `{"algorithm": "fixed_window", "limit": 0, "period": "1s"}`}, "--rule 1: limit = 0: must be between 1 and 1000000000000"},
		// Rules are numbered from 1, as the flags are, in the set's errors too (they said
		// rules[1] for the second rule, from 0).
		{"second rule's name taken", "1\n", []string{"--rule", `{"algorithm": "fixed_window", "limit": 1, "period": "1s"}`, "--rule", `{"algorithm": "fixed_window", "limit": 2, "period": "1s"}`}, `--rule 2: name = "fixed_window": is already used`},
		{"third rule's name taken", "1\n", []string{"--rule", `{"name": "a", "algorithm": "fixed_window", "limit": 1, "period": "1s"}`, "--rule", `{"name": "b", "algorithm": "fixed_window", "limit": 1, "period": "1s"}`, "--rule", `{"name": "a", "algorithm": "token_bucket", "limit": 1, "period": "1s"}`}, `--rule 3: name = "a": is already used`},
		{"bad zone", "1\n", append([]string{"--timezone", "Mars/Olympus"}, rule...), `--timezone "Mars/Olympus": not an IANA time zone`},
		{"no rule", "1\n", nil, "usage: edgelimit simulate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"simulate", "--trace", "-"}, tt.args...)
			code := run(args, strings.NewReader(tt.trace), &stdout, &stderr)
			if code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr containing %q", code, stdout.String(), stderr.String(), tt.wantStderr)
			}
		})
	}
}

func TestSimulateTraceFormats(t *testing.T) {
	trace := "  1798761600.1234567 , k , 2 \n2027-01-01T00:00:00.5Z\n1798761600.5,,1\n"
	var stdout, stderr bytes.Buffer
	code := run([]string{"simulate", "--trace", "-", "--rule", `{"algorithm": "leaky_bucket", "limit": 1, "period": "1s", "burst": 3, "scope": "key"}`},
		strings.NewReader(trace), &stdout, &stderr)
	want := `{"t":1798761600.123456,"key":"k","cost":2,"allowed":true,"remaining":1,"retry_after_ms":0,"delay_ms":0}
{"t":1798761600.500000,"key":"default","cost":1,"allowed":true,"remaining":2,"retry_after_ms":0,"delay_ms":0}
{"t":1798761600.500000,"key":"default","cost":1,"allowed":true,"remaining":1,"retry_after_ms":0,"delay_ms":1000}
allowed 3 of 3
`
	if code != 0 || stdout.String() != want {
		t.Fatalf("exit %d stderr %q\n got:\n%s\nwant:\n%s", code, stderr.String(), stdout.String(), want)
	}
}

// TestSimulateScopes: a trace is one tenant's traffic; each rule counts in its scope.
func TestSimulateScopes(t *testing.T) {
	trace := "1798761600,alice,1,192.0.2.1\n1798761600,bob,1,192.0.2.1\n1798761600,bob,1,2001:db8::1\n1798761600,carol,1,2001:db8::2\n"
	for _, tt := range []struct {
		name, rule string
		want       string // allowed or denied, per line
	}{
		{"tenant (the default): every line in one counter", `{"algorithm": "fixed_window", "limit": 2, "period": "1m"}`, "++--"},
		{"key: each KEY apart", `{"algorithm": "fixed_window", "limit": 1, "period": "1m", "scope": "key"}`, "++-+"},
		{"ip: each ADDR apart, IPv6 per /64", `{"algorithm": "fixed_window", "limit": 1, "period": "1m", "scope": "ip"}`, "+-+-"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"simulate", "--trace", "-", "--rule", tt.rule}, strings.NewReader(trace), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var got strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
				switch {
				case strings.Contains(line, `"allowed":true`):
					got.WriteByte('+')
				case strings.Contains(line, `"allowed":false`):
					got.WriteByte('-')
				}
			}
			if got.String() != tt.want {
				t.Fatalf("decisions %s, want %s:\n%s", got.String(), tt.want, stdout.String())
			}
		})
	}
}
