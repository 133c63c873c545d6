package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/internal/wait"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb/internal/expr"
)

var _ store.Settler = (*Counters)(nil)

// markerPrefix begins the partition key of a settlement's idempotency marker item.
const markerPrefix = "settle#"

// Settle applies s to every counter of cs at most once per s.ID (see store.Settler):
// one TransactWriteItems that puts the marker item "settle#<id>" (condition
// attribute_not_exists(pk)) and, per counter whose guessed state the settlement
// changes, the Update that applies limiter.Set.Settle to the guess, conditioned on the
// guess's branch. A transaction cancelled by the marker's condition was settled
// before: false, nothing changed. One cancelled by a counter's condition is retried
// with the true state it returns, after a short jittered wait; at most
// maxSettleAttempts, then ErrContention.
func (s *Counters) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	if err := store.CheckSettlement(cs, st); err != nil {
		return false, err
	}
	if st.Now >= st.Expires {
		return false, nil
	}
	ks := make([]counter, len(cs))
	for i, c := range cs {
		names, err := s.check(c.Key, c.Set, st.Now, 1)
		if err != nil {
			return false, err
		}
		if c.Key == markerPrefix+st.ID {
			return false, fmt.Errorf("%w: the counter key %q is the settlement's marker", store.ErrSettlement, c.Key)
		}
		ks[i] = counter{key: c.Key, set: c.Set, names: names, guess: s.guesses.get(c.Key, c.Set)}
	}
	fresh := make([]bool, len(ks)) // guesses read from the item in this call
	for attempt := range maxSettleAttempts {
		if attempt > 0 { // a hot item: let the decisions holding it pass
			if err := wait.Sleep(ctx, rand.N(time.Duration(attempt)*2*time.Millisecond)); err != nil {
				return false, fmt.Errorf("dynamodb: settle %s: %w", keyList(ks), err)
			}
		}
		done, applied, err := s.settleOnce(ctx, ks, fresh, st)
		if err != nil || done {
			return applied, err
		}
	}
	return false, fmt.Errorf("dynamodb: settle %s: %w after %d attempts", keyList(ks), ErrContention, maxSettleAttempts)
}

// maxSettleAttempts bounds a settle's attempts, with a jittered wait of up to 2 ms
// times the attempt between them: more than a decision's (maxAttempts), since a
// settle runs after the response, off the request's budget, and its transaction
// conflicts with every decision that writes the item meanwhile.
const maxSettleAttempts = 12

// settleOnce sends one settle transaction built from the guesses. It reports whether
// the settlement is decided (applied, or settled before); if not, the guesses hold
// the true states of the items whose conditions failed, for a retry.
func (s *Counters) settleOnce(ctx context.Context, ks []counter, fresh []bool, st store.Settlement) (done, applied bool, err error) {
	in, after, owners, err := s.settleInput(ks, fresh, st)
	if err != nil {
		return false, false, err
	}
	out, err := s.api.TransactWriteItems(ctx, in, retryLost)
	var canceled *types.TransactionCanceledException
	switch {
	case err == nil:
		s.stats.add(true, out.ConsumedCapacity...)
		for i, k := range ks {
			s.guesses.put(k.key, k.set, after[i])
		}
		return true, true, nil
	case errors.As(err, &canceled):
		s.stats.add(false)
		return s.settleCanceled(ks, fresh, owners, canceled)
	}
	return false, false, classify("dynamodb: settle "+keyList(ks), err)
}

// settleCanceled learns from a cancelled settle transaction: the marker's failed
// condition means settled before; a counter's carries its true state. owners[j] is
// the counter of the transaction's item j+1.
func (s *Counters) settleCanceled(ks []counter, fresh []bool, owners []int, e *types.TransactionCanceledException) (done, applied bool, err error) {
	if len(e.CancellationReasons) != 1+len(owners) {
		return false, false, fmt.Errorf("dynamodb: settle %s: %d cancellation reasons for %d writes: %w", keyList(ks), len(e.CancellationReasons), 1+len(owners), e)
	}
	if aws.ToString(e.CancellationReasons[0].Code) == conditionFailed {
		return true, false, nil
	}
	var failed error
	for j, r := range e.CancellationReasons[1:] {
		k := owners[j]
		switch code := aws.ToString(r.Code); code {
		case conditionFailed:
			states, err := readStates(r.Item, ks[k].set, ks[k].names)
			if err != nil {
				return false, false, fmt.Errorf("dynamodb: settle %q: %w", ks[k].key, err)
			}
			ks[k].guess, fresh[k] = states, true
			s.guesses.put(ks[k].key, ks[k].set, states)
		case "ThrottlingError", "ProvisionedThroughputExceeded":
			return false, false, fmt.Errorf("dynamodb: settle %q: %w: %s: %w", ks[k].key, ErrThrottled, code, e)
		case "", "None", "TransactionConflict":
		default:
			failed = fmt.Errorf("dynamodb: settle %q: %s: %w", ks[k].key, code, e)
		}
	}
	return false, false, failed
}

// settleInput builds one settle transaction: the marker's Put first, then an Update
// per counter whose guess the settlement changes, or a probe of it (see settleUpdate).
// It returns the settled guesses, and the counter of each Update.
func (s *Counters) settleInput(ks []counter, fresh []bool, st store.Settlement) (*dynamodb.TransactWriteItemsInput, [][]limiter.State, []int, error) {
	items := []types.TransactWriteItem{{Put: s.marker(st)}}
	after := make([][]limiter.State, len(ks))
	var owners []int
	for i, k := range ks {
		after[i] = cloneStates(k.guess)
		k.set.Settle(after[i], st.At, st.Now, st.Delta)
		u, err := s.settleUpdate(k, after[i], fresh[i], st)
		if err != nil {
			return nil, nil, nil, err
		}
		if u != nil {
			items, owners = append(items, types.TransactWriteItem{Update: u}), append(owners, i)
		}
	}
	return &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}, after, owners, nil
}

// marker is the Put of the settlement's idempotency marker. Its expires_at (TTL) is
// the reservation's expiry on the real clock (as a counter's, see the package doc),
// plus the margin: Settle answers false without a write from the expiry on.
func (s *Counters) marker(st store.Settlement) *types.Put {
	return newItem(aws.String(s.table), map[string]types.AttributeValue{
		attrKey:     str(markerPrefix + st.ID),
		attrExpires: numValue(s.expiresAt(st.Expires, st.Now)),
	})
}

// settleUpdate is the Update of one counter: nil when the settlement changes none of
// its guessed states and that is sure. A refund or a release that changes nothing on a
// guess not read in this call (another instance may have taken the slot or filled the
// window since) makes the Update a probe, whose condition always fails, so that the
// item comes back for a retry.
func (s *Counters) settleUpdate(k counter, after []limiter.State, fresh bool, st store.Settlement) (*types.Update, error) {
	var p plan
	sure := true
	for i, prefix := range k.names {
		sure = p.settleRule(k.set, i, prefix, &k.guess[i], &after[i], st) && sure
	}
	if !sure && !fresh {
		pk := p.update.Path(attrKey)
		p.cond = expr.Exists(pk).And(expr.NotExists(pk))
	}
	if p.cond == "" {
		return nil, nil
	}
	if st.Delta > 0 || !sure && !fresh { // a charge may keep the state live for longer (a probe needs an action)
		p.update.Set(p.update.Path(attrExpires), p.update.Int(s.expiresAt(k.set.IdleAt(after), st.Now)))
	}
	w, err := p.update.Write(p.cond)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: settle %q: building the update: %w", k.key, err)
	}
	return s.transactUpdate(k.key, w), nil
}
