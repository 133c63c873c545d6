package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/dynamodb/internal/expr"
)

var (
	_ store.Counters    = (*Counters)(nil)
	_ store.RuleChecker = (*Counters)(nil)
)

// CountersAPI is the part of *dynamodb.Client the Counters uses.
type CountersAPI interface {
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// MaxLogLimit is the largest sliding_log limit this backend accepts: the log lives in
// the item (see the package doc for its cost in write units).
const MaxLogLimit = 1000

// maxAttempts bounds the writes of one decision.
const maxAttempts = 3

// CountersConfig configures a Counters. Its zero value means the defaults.
type CountersConfig struct {
	// TTLMargin is added to the instant a key's state goes idle to set its expires_at;
	// 0 means 1 minute.
	TTLMargin time.Duration
	// MaxGuesses bounds the per-key states remembered as guesses (the least recently
	// used is forgotten first); 0 means 100000.
	MaxGuesses int
}

// Counters is the store.Counters over a DynamoDB counters table whose partition key is
// the string attribute "pk". Create it with New.
type Counters struct {
	api     CountersAPI
	table   string
	margin  int64
	guesses *guessCache
	stats   counters
}

// Stats counts a Counters's work since it was created, for metrics and tests.
type Stats struct {
	Decisions  int64   // Decide calls that returned a decision
	Writes     int64   // UpdateItem and TransactWriteItems requests sent by Decide and Settle
	Committed  int64   // of which succeeded (the others failed a condition or conflicted)
	WriteUnits float64 // write capacity units DynamoDB reported for the committed ones
	ReadUnits  float64 // read capacity units DynamoDB reported consuming
}

type counters struct {
	mu sync.Mutex
	Stats
}

// add counts one write request, committed or not, and the capacity it reported (one
// entry per table; a failed write's capacity is not reported).
func (c *counters) add(committed bool, ccs ...types.ConsumedCapacity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Writes++
	if committed {
		c.Committed++
	}
	for _, cc := range ccs {
		if t := cc.Table; t != nil && (t.WriteCapacityUnits != nil || t.ReadCapacityUnits != nil) {
			c.WriteUnits += aws.ToFloat64(t.WriteCapacityUnits)
			c.ReadUnits += aws.ToFloat64(t.ReadCapacityUnits)
			continue
		}
		c.WriteUnits += aws.ToFloat64(cc.CapacityUnits) // TOTAL: a write's units are write units
	}
}

func (c *counters) decided() {
	c.mu.Lock()
	c.Decisions++
	c.mu.Unlock()
}

// Stats returns the counts so far.
func (s *Counters) Stats() Stats {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return s.stats.Stats
}

// NewCounters returns a Counters on table, sending its requests through api.
func NewCounters(api CountersAPI, table string, cfg CountersConfig) *Counters {
	if cfg.TTLMargin <= 0 {
		cfg.TTLMargin = time.Minute
	}
	if cfg.MaxGuesses <= 0 {
		cfg.MaxGuesses = 100_000
	}
	return &Counters{api: api, table: table, margin: cfg.TTLMargin.Microseconds(), guesses: newGuessCache(cfg.MaxGuesses)}
}

// noRetry turns the SDK's retries off: a retry of an UpdateItem after a lost reply
// would consume twice.
func noRetry(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }

// retryLost lets the SDK retry a TransactWriteItems once when its reply was lost (a
// connection error) or an HTTP 5xx, after at most 10 ms: the SDK fills the call's
// ClientRequestToken in once, before its retries, and DynamoDB applies a transaction
// whose token it has seen (for 10 minutes) at most once, so the retry consumes once.
// Throttles and conflicts are not retried here: the Counters and the hot counters
// handle those.
func retryLost(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts, so.MaxBackoff, so.RateLimiter = 2, 10*time.Millisecond, ratelimit.None
		so.Retryables = []retry.IsErrorRetryable{retry.RetryableConnectionError{},
			retry.RetryableHTTPStatusCode{Codes: map[int]struct{}{500: {}, 502: {}, 503: {}, 504: {}}}}
	})
}

func (s *Counters) key(key string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrKey: str(key)}
}

// Decide decides a request of cost against the counters of cs at now; see
// store.Counters. One counter is one conditional UpdateItem, several are one
// TransactWriteItems (see the package doc).
func (s *Counters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if err := store.CheckCounters(cs, now, cost, outs); err != nil {
		return err
	}
	if len(cs) > 1 {
		return s.decideMany(ctx, cs, now, cost, outs)
	}
	d, err := s.decideOne(ctx, cs[0].Key, cs[0].Set, now, cost)
	outs[0] = d
	return err
}

// decideOne decides a request of cost for key against set at now: one conditional
// UpdateItem when the Counters's guess of the state is right, at most 3.
func (s *Counters) decideOne(ctx context.Context, key string, set *limiter.Set, now, cost int64) (limiter.Decision, error) {
	names, err := s.check(key, set, now, cost)
	if err != nil {
		return limiter.Decision{}, err
	}
	guess := s.guesses.get(key, set)
	for n := range maxAttempts {
		d, old, err := s.attempt(ctx, key, set, names, guess, now, cost, n > 0)
		if err != nil || d != nil {
			if d != nil {
				return *d, nil
			}
			return limiter.Decision{}, err
		}
		guess = old // the item changed under the guess: retry from the true state
	}
	return limiter.Decision{}, fmt.Errorf("dynamodb: decide %q: %w after %d attempts", key, ErrContention, maxAttempts)
}

// attempt sends one UpdateItem built from guess. It returns the decision when it is
// known, or else the true state to guess from next.
func (s *Counters) attempt(ctx context.Context, key string, set *limiter.Set, names []string, guess []limiter.State, now, cost int64, retry bool) (*limiter.Decision, []limiter.State, error) {
	probe, _ := set.Decide(cloneStates(guess), now, cost)
	in, keepsL, err := s.updateInput(key, set, names, guess, now, cost, attemptKind{probe: !probe.Allowed, retry: retry})
	if err != nil {
		return nil, nil, err
	}
	out, err := s.api.UpdateItem(ctx, in, noRetry)
	var failed *types.ConditionalCheckFailedException
	var item map[string]types.AttributeValue
	switch {
	case err == nil:
		item = out.Attributes
		s.stats.add(true, capacities(out.ConsumedCapacity)...)
	case errors.As(err, &failed):
		item = failed.Item
		s.stats.add(false)
	case errors.As(err, new(*types.TransactionConflictException)):
		s.stats.add(false) // a transaction of several counters holds the item: retry
		return nil, guess, nil
	default:
		return nil, nil, classify("dynamodb: decide "+key, err)
	}
	old, err := readStates(item, set, names)
	if err != nil {
		return nil, nil, err
	}
	states := cloneStates(old)
	d, err := set.Decide(states, now, cost)
	if err != nil {
		return nil, nil, err
	}
	if failed == nil && !d.Allowed {
		return nil, nil, fmt.Errorf("dynamodb: decide %q: the write succeeded on a state the limiter denies: %w", key, ErrMalformedItem)
	}
	switch {
	case failed == nil: // written: states is the new state
		keepLast(states, old, keepsL)
		s.guesses.put(key, set, states)
		s.stats.decided()
		return &d, nil, nil
	case !d.Allowed: // denied: nothing to write
		s.guesses.put(key, set, old)
		s.stats.decided()
		return &d, nil, nil
	}
	return nil, old, nil
}

// capacities is the capacity one UpdateItem reported, as a list (empty when none).
func capacities(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

// updateInput builds the UpdateItem of one attempt; a probe's condition always fails.
func (s *Counters) updateInput(key string, set *limiter.Set, names []string, guess []limiter.State, now, cost int64, kind attemptKind) (*dynamodb.UpdateItemInput, uint8, error) {
	w, keepsL, err := s.write(key, set, names, guess, now, cost, kind)
	if err != nil {
		return nil, 0, err
	}
	in := s.updateItem(key, w)
	in.ReturnValues = types.ReturnValueAllOld
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	return in, keepsL, nil
}

// updateItem is the UpdateItem of w on key's item.
func (s *Counters) updateItem(key string, w expr.Write) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: s.key(key),
		ConditionExpression: optional(w.Condition), UpdateExpression: optional(w.Update),
		ExpressionAttributeNames: w.Names, ExpressionAttributeValues: w.Values,
	}
}

// attemptKind is what sort of write an attempt sends: a probe (its condition always
// fails), a retry after a failed one (see plan.relativeClock).
type attemptKind struct{ probe, retry bool }

// keepLast sets the l of each rule whose write left l alone (a bit of keepsL) in
// states back to before's: the stored l is as it was, and a guess's l must never be
// later than the stored one (see plan.relativeClock).
func keepLast(states, before []limiter.State, keepsL uint8) {
	for i := range states {
		if keepsL&(1<<i) != 0 {
			states[i].Last = before[i].Last
		}
	}
}

// write builds the condition and update of one key's write from guess (see the
// package doc), and reports which rules' updates leave l alone (plan.keepsL); a
// probe's condition always fails.
func (s *Counters) write(key string, set *limiter.Set, names []string, guess []limiter.State, now, cost int64, kind attemptKind) (expr.Write, uint8, error) {
	p := plan{retry: kind.retry}
	for i := range names {
		p.planRule(set, i, names[i], &guess[i], now, cost)
	}
	p.update.Set(p.update.Path(attrExpires), p.update.Int(s.expiresAt(p.expires, now)))
	if kind.probe {
		pk := p.update.Path(attrKey)
		p.cond = expr.Exists(pk).And(expr.NotExists(pk))
	}
	w, err := p.update.Write(p.cond)
	if err != nil {
		return expr.Write{}, 0, fmt.Errorf("dynamodb: decide %q: building the update: %w", key, err)
	}
	return w, p.keepsL, nil
}

// expiresAt is the expires_at (TTL, epoch seconds) of an item whose state is idle at
// idle, decided at now. TTL deletion runs on DynamoDB's clock: the item is kept for as
// long past the real time as its state stays live past now (they differ when time is
// injected, as in tests), plus the margin.
func (s *Counters) expiresAt(idle, now int64) int64 {
	return time.Now().Unix() + (idle-now+s.margin)/1_000_000 + 1
}

// optional is s as an optional field of a request: nil when empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// check validates the request and the set, and returns the rules' attribute prefixes.
func (s *Counters) check(key string, set *limiter.Set, now, cost int64) ([]string, error) {
	if err := store.CheckRequest(key, set, now, cost); err != nil {
		return nil, err
	}
	for i := range set.Len() {
		if err := s.CheckRule(set.Rule(i)); err != nil {
			return nil, fmt.Errorf("%w: rule %q: %w", ErrUnsupported, set.Rule(i).Name, err)
		}
	}
	return prefixes(set)
}

// CheckRule refuses what this backend cannot decide: a sliding_log limit above
// MaxLogLimit (its entries live in the item). The error is a *limiter.FieldError
// naming "limit".
func (s *Counters) CheckRule(r limiter.Rule) error {
	if r.Algorithm == limiter.SlidingLog && r.Limit > MaxLogLimit {
		return &limiter.FieldError{Field: "limit", Value: strconv.FormatInt(r.Limit, 10),
			Reason: fmt.Sprintf("a sliding_log limit is at most %d on the DynamoDB backend (its entries live in one item): use sliding_window for larger limits", MaxLogLimit)}
	}
	return nil
}

// Peek reads the item (strongly consistent) and reports what a request of cost 1
// would get, without writing.
func (s *Counters) Peek(ctx context.Context, key string, set *limiter.Set, now int64, outs []limiter.Outcome) (limiter.Decision, error) {
	names, err := s.check(key, set, now, 1)
	if err != nil {
		return limiter.Decision{}, err
	}
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: s.key(key), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return limiter.Decision{}, classify("dynamodb: peek "+key, err)
	}
	states, err := readStates(out.Item, set, names)
	if err != nil {
		return limiter.Decision{}, err
	}
	return set.Peek(states, now, outs)
}

// Reset deletes key's item.
func (s *Counters) Reset(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	s.guesses.drop(key)
	if _, err := s.api.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: s.key(key)}); err != nil {
		return classify("dynamodb: reset "+key, err)
	}
	return nil
}

// cloneStates deep-copies states, sliding logs included.
func cloneStates(in []limiter.State) []limiter.State {
	out := make([]limiter.State, len(in))
	for i, st := range in {
		out[i] = st
		out[i].Log = limiter.Log{}
		for k := range st.Log.Len() {
			e := st.Log.At(k)
			out[i].Log.Push(e.At, e.Cost)
		}
	}
	return out
}
