package simulate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Run decides every request against set (Decide) and writes one JSON object per
// request to w (a Line), then `allowed N of M`. The requests come from ParseTrace, so
// the only errors are write errors.
func Run(set *limiter.Set, reqs []Request, w io.Writer) error {
	lines, err := Decide(set, reqs)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	allowed := 0
	for _, l := range lines {
		if l.Allowed {
			allowed++
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	fmt.Fprintf(bw, "allowed %d of %d\n", allowed, len(reqs))
	return bw.Flush()
}

// Decide decides every request against set as the authorizer would for one tenant:
// each rule in its scope's counter (one for the tenant, one per KEY, one per ADDR), all
// of a request's counters decided as one. It returns one Line per request, what Run
// writes.
func Decide(set *limiter.Set, reqs []Request) ([]Line, error) {
	scoped, err := tenant.ScopedSets(set.Rules(), limiter.ScopeTenant, set.Zone())
	if err != nil {
		return nil, err
	}
	states := map[string][]limiter.State{}
	sets := make([]*limiter.Set, len(scoped))
	sts := make([][]limiter.State, len(scoped))
	outs := make([]limiter.Decision, len(scoped))
	lines := make([]Line, 0, len(reqs))
	for _, r := range reqs {
		for i, sc := range scoped {
			id := tenant.Caller{KeyID: r.Key, Addr: r.Addr}.Identity(sc.Scope)
			if states[id] == nil {
				states[id] = sc.Set.NewStates()
			}
			sets[i], sts[i] = sc.Set, states[id]
		}
		if _, err := limiter.DecideAll(sets, sts, r.At, r.Cost, outs); err != nil {
			return nil, &LineError{Line: r.Line, Reason: err.Error()}
		}
		d, _ := limiter.Join(outs)
		lines = append(lines, newLine(r, d, set.HasLeaky()))
	}
	return lines, nil
}

// Line is one decision as Run writes it, the simulate output contract: the request's
// time in seconds with 6 decimals, its key and cost, and the decision; DelayMs is
// there when the set has a leaky bucket.
type Line struct {
	T            json.Number `json:"t"`
	Key          string      `json:"key"`
	Cost         int64       `json:"cost"`
	Allowed      bool        `json:"allowed"`
	Remaining    int64       `json:"remaining"`
	RetryAfterMs int64       `json:"retry_after_ms"`
	DelayMs      *int64      `json:"delay_ms,omitempty"`
}

func newLine(r Request, d limiter.Decision, leaky bool) Line {
	l := Line{T: json.Number(formatSeconds(r.At)), Key: r.Key, Cost: r.Cost, Allowed: d.Allowed,
		Remaining: d.Remaining, RetryAfterMs: limiter.CeilMillis(d.RetryAfter)}
	if leaky {
		delay := limiter.CeilMillis(d.Delay)
		l.DelayMs = &delay
	}
	return l
}
