package dynamodb

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/big"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Item attributes. Every rule's fields are named by a prefix derived from its
// limiter.Rule.StateID, so that an edited rule set keeps the state of unchanged rules.
const (
	attrKey     = "pk"         // the partition key: the limited key
	attrExpires = "expires_at" // TTL, epoch seconds
)

// Rule fields: window start and end, count, previous count, scaled TAT, last instant,
// the log's map of instant -> cost, and the log's total.
const (
	fWindowStart = "ws"
	fWindowEnd   = "we"
	fCount       = "c"
	fPrev        = "p"
	fTAT         = "t"
	fLast        = "l"
	fLog         = "g"
	fLogTotal    = "n"
)

// rulePrefix names rule i's attributes: "r" and 8 hex digits of its StateID's hash.
func rulePrefix(stateID string) string {
	h := fnv.New32a()
	h.Write([]byte(stateID))
	return fmt.Sprintf("r%08x", h.Sum32())
}

// prefixes returns every rule's prefix, rejecting the (astronomically unlikely) set
// whose two rules share one.
func prefixes(set *limiter.Set) ([]string, error) {
	out := make([]string, set.Len())
	for i := range out {
		out[i] = rulePrefix(set.Rule(i).StateID())
		if slices.Contains(out[:i], out[i]) {
			return nil, fmt.Errorf("%w: rules %q and another share an attribute prefix; rename one", ErrUnsupported, set.Rule(i).Name)
		}
	}
	return out, nil
}

// readStates converts an item (nil for none) into one limiter.State per rule.
func readStates(item map[string]types.AttributeValue, set *limiter.Set, names []string) ([]limiter.State, error) {
	states := set.NewStates()
	for i := range states {
		r, st, p := set.Rule(i), &states[i], names[i]
		var err error
		switch r.Algorithm {
		case limiter.FixedWindow:
			err = readInts(item, p, map[string]*int64{fWindowStart: &st.WindowStart, fWindowEnd: &st.WindowEnd, fCount: &st.Count})
		case limiter.SlidingWindow:
			err = readInts(item, p, map[string]*int64{fWindowStart: &st.WindowStart, fCount: &st.Count, fPrev: &st.Prev, fLast: &st.Last})
		case limiter.SlidingLog, limiter.Concurrency: // a map, its total and l
			err = readLog(item, p, st)
		default:
			err = readBucket(item, p, r.Limit, st)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: rule %q: %v", ErrMalformedItem, r.Name, err)
		}
	}
	return states, nil
}

func readInts(item map[string]types.AttributeValue, prefix string, fields map[string]*int64) error {
	for f, dst := range fields {
		v, err := intAttr(item, prefix+f)
		if err != nil {
			return err
		}
		*dst = v
	}
	return nil
}

// intAttr reads a number attribute as int64; a missing attribute is 0.
func intAttr(item map[string]types.AttributeValue, name string) (int64, error) {
	av, ok := item[name]
	if !ok {
		return 0, nil
	}
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("%s is not a number", name)
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s (%d digits) is not a non-negative integer", name, len(n.Value))
	}
	return v, nil
}

// readBucket reads the scaled TAT t = TAT*limit + fraction, an integer beyond int64.
func readBucket(item map[string]types.AttributeValue, prefix string, limit int64, st *limiter.State) error {
	var err error
	if st.Last, err = intAttr(item, prefix+fLast); err != nil {
		return err
	}
	av, ok := item[prefix+fTAT]
	if !ok {
		return nil
	}
	n, ok := av.(*types.AttributeValueMemberN)
	t, parsed := new(big.Int), false
	if ok {
		_, parsed = t.SetString(n.Value, 10)
	}
	if !parsed || t.Sign() < 0 {
		return fmt.Errorf("%s is not a non-negative integer", prefix+fTAT)
	}
	q, m := new(big.Int).DivMod(t, big.NewInt(limit), new(big.Int))
	if !q.IsInt64() || q.Int64() > limiter.MaxTime+limiter.MaxFillMicros {
		return fmt.Errorf("%s (%d digits) is out of range", prefix+fTAT, len(n.Value))
	}
	st.TAT, st.TATFrac = q.Int64(), m.Int64()
	return nil
}

// readLog reads a sliding log: the map of instant -> cost, the total and the last instant.
func readLog(item map[string]types.AttributeValue, prefix string, st *limiter.State) error {
	var err error
	if st.Count, err = intAttr(item, prefix+fLogTotal); err != nil {
		return err
	}
	if st.Last, err = intAttr(item, prefix+fLast); err != nil {
		return err
	}
	av, ok := item[prefix+fLog]
	if !ok {
		return nil
	}
	m, ok := av.(*types.AttributeValueMemberM)
	if !ok {
		return fmt.Errorf("%s is not a map", prefix+fLog)
	}
	entries := make([]limiter.Entry, 0, len(m.Value))
	for k := range m.Value {
		at, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return fmt.Errorf("%s has the key %q, not an instant", prefix+fLog, k)
		}
		cost, err := intAttr(m.Value, k)
		if err != nil {
			return err
		}
		entries = append(entries, limiter.Entry{At: at, Cost: cost})
	}
	slices.SortFunc(entries, func(a, b limiter.Entry) int { return cmp.Compare(a.At, b.At) })
	for _, e := range entries {
		st.Log.Push(e.At, e.Cost)
	}
	return nil
}

// scaled returns us*limit + frac, beyond int64 at the rule bounds.
func scaled(us, limit, frac int64) *big.Int {
	v := new(big.Int).Mul(big.NewInt(us), big.NewInt(limit))
	return v.Add(v, big.NewInt(frac))
}
