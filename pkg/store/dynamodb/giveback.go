package dynamodb

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// GiveBack returns units that were consumed on key under set at the instant at and
// not spent (a hot counter's lease, pkg/hotcounter): one UpdateItem that subtracts
// them from every rule's count while every rule is still in the window of at and
// counts at least units. Only sets of fixed windows (not anchored to a first request)
// and sliding windows may give back; others are refused with ErrUnsupported. When a
// window of at has ended, nothing is given back and the error is nil: the units ended
// with it.
func (s *Counters) GiveBack(ctx context.Context, key string, set *limiter.Set, at, units int64) error {
	names, err := s.check(key, set, at, units)
	if err != nil {
		return err
	}
	var p plan
	for i, prefix := range names {
		r := set.Rule(i)
		if r.Algorithm != limiter.SlidingWindow && (r.Algorithm != limiter.FixedWindow || r.Anchor == limiter.AnchorFirstRequest) {
			return fmt.Errorf("dynamodb: give back %q: %w: rule %q is not a fixed or sliding window", key, ErrUnsupported, r.Name)
		}
		start, _ := set.Window(i, at)
		ws, c := p.name(prefix, fWindowStart), p.name(prefix, fCount)
		p.require(ws.Equal(p.num(start)).And(c.GreaterThan(p.num(units - 1))))
		p.update.Add(c, p.num(-units))
	}
	w, err := p.update.Write(p.cond)
	if err != nil {
		return fmt.Errorf("dynamodb: give back %q: building the update: %w", key, err)
	}
	s.guesses.drop(key)
	_, err = s.api.UpdateItem(ctx, s.updateItem(key, w), noRetry)
	if errors.As(err, new(*types.ConditionalCheckFailedException)) {
		return nil // a window ended: its units went with it
	}
	if err != nil {
		return classify("dynamodb: give back "+key, err)
	}
	return nil
}
