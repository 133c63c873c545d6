package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb/internal/expr"
)

// counter is one counter of a decision over several: its key, its rules and their
// attribute prefixes, and the guess its next write is built from.
type counter struct {
	key   string
	set   *limiter.Set
	names []string
	guess []limiter.State
	// keepsL: the rules whose update in the last transaction left l alone (see
	// plan.keepsL).
	keepsL uint8
}

// decideMany decides a request of cost against several counters at now: one
// TransactWriteItems when the Counters's guesses of their states are right, at most
// maxAttempts. outs is cleared on an error.
func (s *Counters) decideMany(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	var buf [store.MaxCounters]counter
	ks := buf[:len(cs)]
	for i, c := range cs {
		names, err := s.check(c.Key, c.Set, now, cost)
		if err != nil {
			return err
		}
		ks[i] = counter{key: c.Key, set: c.Set, names: names, guess: s.guesses.get(c.Key, c.Set)}
	}
	for n := range maxAttempts {
		done, err := s.transact(ctx, ks, now, cost, outs, n > 0)
		if err != nil {
			clear(outs)
			return err
		}
		if done {
			s.stats.decided()
			return nil
		}
	}
	clear(outs)
	return fmt.Errorf("dynamodb: decide %s: %w after %d attempts", keyList(ks), ErrContention, maxAttempts)
}

// transact sends one TransactWriteItems built from the guesses: the request's writes
// when the guesses allow it, else a probe whose every condition fails. It reports
// whether outs holds the decision; if not, the guesses are updated for a retry.
func (s *Counters) transact(ctx context.Context, ks []counter, now, cost int64, outs []limiter.Decision, retry bool) (bool, error) {
	var states [store.MaxCounters][]limiter.State
	allowed, err := decideAll(ks, states[:len(ks)], now, cost, outs)
	if err != nil {
		return false, err
	}
	in, err := s.transactInput(ks, now, cost, attemptKind{probe: !allowed, retry: retry})
	if err != nil {
		return false, err
	}
	out, err := s.api.TransactWriteItems(ctx, in, retryLost)
	var canceled *types.TransactionCanceledException
	switch {
	case err == nil && allowed: // every condition held: outs is the decision
		s.stats.add(true, out.ConsumedCapacity...)
		for i, k := range ks {
			keepLast(states[i], k.guess, k.keepsL)
			s.guesses.put(k.key, k.set, states[i])
		}
		return true, nil
	case err == nil:
		s.stats.add(true, out.ConsumedCapacity...)
		for _, k := range ks {
			s.guesses.drop(k.key)
		}
		return false, fmt.Errorf("dynamodb: decide %s: a probe whose conditions cannot hold was committed", keyList(ks))
	case errors.As(err, &canceled):
		s.stats.add(false)
		return s.canceled(ks, canceled, now, cost, outs)
	}
	return false, classify("dynamodb: decide "+keyList(ks), err)
}

// canceled learns from a cancelled transaction. A ConditionalCheckFailed reason
// carries its item as it was: its true state, which becomes the counter's guess.
// When a counter whose true state is known denies, outs is the denial (nothing was
// written). Otherwise a throttled or invalid item is an error, and the rest (guesses
// proved wrong, conflicts with other transactions) calls for a retry.
func (s *Counters) canceled(ks []counter, e *types.TransactionCanceledException, now, cost int64, outs []limiter.Decision) (bool, error) {
	if len(e.CancellationReasons) != len(ks) {
		return false, fmt.Errorf("dynamodb: decide %s: %d cancellation reasons for %d writes: %w", keyList(ks), len(e.CancellationReasons), len(ks), e)
	}
	var known [store.MaxCounters]bool
	var throttled, failed error
	for i, r := range e.CancellationReasons {
		switch code := aws.ToString(r.Code); code {
		case conditionFailed:
			states, err := readStates(r.Item, ks[i].set, ks[i].names)
			if err != nil {
				return false, fmt.Errorf("dynamodb: decide %q: %w", ks[i].key, err)
			}
			ks[i].guess, known[i] = states, true
			s.guesses.put(ks[i].key, ks[i].set, states)
		case "ThrottlingError", "ProvisionedThroughputExceeded":
			throttled = fmt.Errorf("dynamodb: decide %q: %w: %s: %w", ks[i].key, ErrThrottled, code, e)
		case "", "None", "TransactionConflict":
		default: // ValidationError, ItemCollectionSizeLimitExceeded, ...
			failed = fmt.Errorf("dynamodb: decide %q: %s: %w", ks[i].key, code, e)
		}
	}
	var states [store.MaxCounters][]limiter.State
	if _, err := decideAll(ks, states[:len(ks)], now, cost, outs); err != nil {
		return false, err
	}
	for i := range ks {
		if known[i] && !outs[i].Allowed {
			return true, nil
		}
	}
	if throttled != nil {
		return false, throttled
	}
	return false, failed
}

// decideAll runs limiter.DecideAll on copies of the guesses, left in states.
func decideAll(ks []counter, states [][]limiter.State, now, cost int64, outs []limiter.Decision) (bool, error) {
	var sets [store.MaxCounters]*limiter.Set
	for i, k := range ks {
		sets[i], states[i] = k.set, cloneStates(k.guess)
	}
	return limiter.DecideAll(sets[:len(ks)], states, now, cost, outs)
}

// transactInput builds the TransactWriteItems of one attempt: per counter, the Update
// its guess gives (the condition and update the single-counter UpdateItem would
// carry), returning the old item when its condition fails. A probe's conditions all
// fail, so that every item comes back.
func (s *Counters) transactInput(ks []counter, now, cost int64, kind attemptKind) (*dynamodb.TransactWriteItemsInput, error) {
	items := make([]types.TransactWriteItem, len(ks))
	for i, k := range ks {
		w, keepsL, err := s.write(k.key, k.set, k.names, k.guess, now, cost, kind)
		if err != nil {
			return nil, err
		}
		ks[i].keepsL = keepsL
		items[i].Update = s.transactUpdate(k.key, w)
	}
	return &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}, nil
}

// transactUpdate is the Update of key's item in a transaction: w's condition and
// update, returning the old item when the condition fails.
func (s *Counters) transactUpdate(key string, w expr.Write) *types.Update {
	return &types.Update{
		TableName:                           aws.String(s.table),
		Key:                                 s.key(key),
		ConditionExpression:                 optional(w.Condition),
		UpdateExpression:                    optional(w.Update),
		ExpressionAttributeNames:            w.Names,
		ExpressionAttributeValues:           w.Values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// keyList quotes the counters' keys for error messages.
func keyList(ks []counter) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = strconv.Quote(k.key)
	}
	return strings.Join(q, ", ")
}
