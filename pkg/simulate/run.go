package simulate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Run decides every request against set, each key with its own state, and writes one
// JSON object per request to w, then `allowed N of M`. The requests come from
// ParseTrace, so the only errors are write errors.
func Run(set *limiter.Set, reqs []Request, w io.Writer) error {
	bw := bufio.NewWriter(w)
	states := map[string][]limiter.State{}
	allowed := 0
	var line []byte
	for _, r := range reqs {
		st, ok := states[r.Key]
		if !ok {
			st = set.NewStates()
			states[r.Key] = st
		}
		d, err := set.Decide(st, r.At, r.Cost)
		if err != nil {
			return &LineError{Line: r.Line, Reason: err.Error()}
		}
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
