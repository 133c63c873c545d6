package luascript

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/pkg/store"
)

// decideMain is the line of decide.lua from which on the decision is made: what comes
// before it is the functions that settle.lua continues.
const decideMain = "\n-- The decision."

var (
	//go:embed settle.lua
	settleSource string

	// settleScript is decide.lua's functions followed by settle.lua, which applies a
	// store.Settlement to its counters at most once.
	settleScript = NewScript(settleText(decideSource, settleSource))
)

// settleText returns the settle script: decide's functions, then settle. Without
// decideMain in decide it is a script that fails with that error.
func settleText(decide, settle string) string {
	lib, _, ok := strings.Cut(decide, decideMain)
	if !ok {
		return "return redis.error_reply('edgelimit: decide.lua has no line \"-- The decision.\" for settle.lua to follow')"
	}
	return lib + "\n" + settle
}

// MarkerKey returns the name of the idempotency marker of settlement id over the
// counters whose first key is key. It holds key whole, after the id (which holds
// neither ':' nor a brace), so it lands in key's Redis Cluster hash slot.
func MarkerKey(key, id string) string { return "el:s:" + id + ":" + key }

// SettleArgs returns the KEYS and ARGV of the settle script applying s to the counters
// of cs, with ttlMargin past the instant a state goes idle and past the reservation's
// expiry for the marker (0 means 1 minute): decide.lua's at s.Now, then the marker
// (MarkerKey of the first counter's key), s.At, s.Delta and the marker's TTL.
func SettleArgs(cs []store.Counter, s store.Settlement, ttlMargin time.Duration) ([]string, []any) {
	keys, args := DecideArgs(cs, s.Now, 1, false, ttlMargin)
	ttlMS := (s.Expires-s.Now+999)/1000 + MarginMS(ttlMargin)
	return append(keys, MarkerKey(cs[0].Key, s.ID)), append(args, s.At, s.Delta, ttlMS)
}

// Settle is store.Settler.Settle with the settle script. A settlement at or after its
// expiry changes nothing: it returns false without a round trip. The script answers 1
// (applied) or 0 (already applied); another answer is an ErrMalformedReply.
func (s Counters) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	if err := store.CheckSettlement(cs, st); err != nil || st.Now >= st.Expires {
		return false, err
	}
	var buf [store.MaxCounters]store.Counter
	keys, args := SettleArgs(s.stored(&buf, cs), st, s.Margin)
	answer, err := s.Conn.Eval(ctx, s.SettleScript, keys, args...)
	if err == nil && answer != 0 && answer != 1 {
		err = fmt.Errorf("%w: the settle script answered %d", ErrMalformedReply, answer)
	}
	if err != nil {
		return false, fmt.Errorf("%s: settle %s: %w", s.Name, counterKeys(cs), err)
	}
	return answer == 1, nil
}
