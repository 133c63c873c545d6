package simulate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Run decides every request against set as the authorizer would for one tenant: each
// rule in its scope's counter (one for the tenant, one per KEY, one per ADDR), all of a
// request's counters decided as one. It writes one JSON object per request to w, then
// `allowed N of M`. The requests come from ParseTrace, so the only errors are write
// errors.
func Run(set *limiter.Set, reqs []Request, w io.Writer) error {
	scoped, err := tenant.ScopedSets(set.Rules(), limiter.ScopeTenant, set.Zone())
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	states := map[string][]limiter.State{}
	allowed := 0
	var line []byte
	sets := make([]*limiter.Set, len(scoped))
	sts := make([][]limiter.State, len(scoped))
	outs := make([]limiter.Decision, len(scoped))
	for _, r := range reqs {
		for i, sc := range scoped {
			id := tenant.Caller{KeyID: r.Key, Addr: r.Addr}.Identity(sc.Scope)
			if states[id] == nil {
				states[id] = sc.Set.NewStates()
			}
			sets[i], sts[i] = sc.Set, states[id]
		}
		if _, err := limiter.DecideAll(sets, sts, r.At, r.Cost, outs); err != nil {
			return &LineError{Line: r.Line, Reason: err.Error()}
		}
		d, _ := limiter.Join(outs)
		if d.Allowed {
			allowed++
		}
		line = appendDecision(line[:0], r, d, set.HasLeaky())
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	fmt.Fprintf(bw, "allowed %d of %d\n", allowed, len(reqs))
	return bw.Flush()
}

// appendDecision writes one output line: t, key, cost, allowed, remaining,
// retry_after_ms, and delay_ms when the set has a leaky bucket.
func appendDecision(b []byte, r Request, d limiter.Decision, leaky bool) []byte {
	key, _ := json.Marshal(r.Key)
	b = append(b, `{"t":`...)
	b = append(b, formatSeconds(r.At)...)
	b = append(b, `,"key":`...)
	b = append(b, key...)
	b = append(b, `,"cost":`...)
	b = strconv.AppendInt(b, r.Cost, 10)
	b = append(b, `,"allowed":`...)
	b = strconv.AppendBool(b, d.Allowed)
	b = append(b, `,"remaining":`...)
	b = strconv.AppendInt(b, d.Remaining, 10)
	b = append(b, `,"retry_after_ms":`...)
	b = strconv.AppendInt(b, limiter.CeilMillis(d.RetryAfter), 10)
	if leaky {
		b = append(b, `,"delay_ms":`...)
		b = strconv.AppendInt(b, limiter.CeilMillis(d.Delay), 10)
	}
	return append(b, "}\n"...)
}
