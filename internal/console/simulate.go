package console

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/simulate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// MaxSimulateBytes bounds a simulate request's body.
const MaxSimulateBytes = 1 << 20

// simulateRequest is the body of POST SimulatePath.
type simulateRequest struct {
	Rules    []json.RawMessage `json:"rules"`
	Timezone string            `json:"timezone"` // "" means UTC
	Trace    string            `json:"trace"`    // TIME[,KEY[,COST[,ADDR]]] lines, as `edgelimit simulate` reads them
}

// simulateNames has the JSON names of a simulateRequest, its rules' too, whose case
// admin.CheckBody enforces.
type simulateNames struct {
	Rules    []limiter.Rule `json:"rules"`
	Timezone string         `json:"timezone"`
	Trace    string         `json:"trace"`
}

// simulateJSON is the answer of POST SimulatePath.
type simulateJSON struct {
	Decisions []simulate.Line `json:"decisions"` // as `edgelimit simulate` prints them
	Allowed   int             `json:"allowed"`
	Total     int             `json:"total"`
}

// serveSimulate answers POST SimulatePath: the trace through the rule set, each key
// with its own state, as `edgelimit simulate` replays it. Nothing is stored.
func serveSimulate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		admin.WriteProblem(w, r, "method-not-allowed", "", "use POST")
		return
	}
	req, ok := readSimulateRequest(w, r)
	if !ok {
		return
	}
	set, field, err := ruleSet(req)
	if err != nil {
		admin.WriteProblem(w, r, "invalid-field", field, err.Error())
		return
	}
	reqs, err := simulate.ParseTrace(strings.NewReader(req.Trace), set)
	var lines []simulate.Line
	if err == nil {
		lines, err = simulate.Decide(set, reqs) // what `edgelimit simulate` prints, line for line
	}
	if err != nil {
		admin.WriteProblem(w, r, "invalid-field", "trace", err.Error())
		return
	}
	out := simulateJSON{Decisions: lines, Total: len(reqs)}
	for _, l := range lines {
		if l.Allowed {
			out.Allowed++
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// readSimulateRequest reads the body strictly, as the admin API reads its own: on a
// bad one it answers the problem and reports false.
func readSimulateRequest(w http.ResponseWriter, r *http.Request) (simulateRequest, bool) {
	var req simulateRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxSimulateBytes))
	if err == nil && admin.CheckBody(w, r, body, simulateNames{}) {
		return req, false
	}
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		err = dec.Decode(&req)
	}
	if err != nil {
		admin.WriteProblem(w, r, "invalid-json", "", "the body must be {\"rules\": [...], \"timezone\": \"...\", \"trace\": \"...\"}: "+err.Error())
		return req, false
	}
	return req, true
}

// ruleSet builds the set of req's rules in its time zone; an error names the field.
func ruleSet(req simulateRequest) (*limiter.Set, string, error) {
	zone := cmp.Or(req.Timezone, "UTC")
	loc, err := tenant.LoadLocation(zone)
	if err != nil || zone == "Local" {
		return nil, "timezone", fmt.Errorf("%q is not an IANA time zone such as \"Europe/London\"", zone)
	}
	if len(req.Rules) == 0 {
		return nil, "rules", errors.New("give at least one rule")
	}
	rules := make([]limiter.Rule, len(req.Rules))
	for i, raw := range req.Rules {
		if rules[i], err = limiter.ParseRule(raw); err != nil {
			return nil, "rules[" + strconv.Itoa(i) + "]", err
		}
	}
	set, err := limiter.NewSet(rules, limiter.FixedZone(loc))
	return set, "rules", err
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
