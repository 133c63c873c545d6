package ddbthrottle

import (
	"encoding/json"
	"errors"

	"golang.org/x/time/rate"
)

// charge is what one item of a request costs: read or write units, in halves.
type charge struct {
	item   itemKey
	write  bool
	halves int
}

// request holds the fields of the charged operations' bodies that name their items.
type request struct {
	TableName      string
	Key, Item      map[string]json.RawMessage
	ConsistentRead bool
	TransactItems  []map[string]request // {"Update": {...}}, {"Put": ...}, {"Delete": ...}, {"ConditionCheck": ...}
}

// partitionKey is the partition key's attribute name, edgelimit's tables' "pk" (a
// string: a request on another kind of key passes uncharged).
const partitionKey = "pk"

// parse returns the charges of one request of operation op (none for an operation
// that is not charged).
func parse(op string, body []byte) ([]charge, error) {
	var r request
	switch op {
	case "UpdateItem", "PutItem", "DeleteItem", "GetItem", "TransactWriteItems":
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
	default:
		return nil, nil
	}
	if op == "TransactWriteItems" {
		return parseTransaction(r)
	}
	c, err := r.charge(op != "GetItem", 2)
	if op == "GetItem" && !r.ConsistentRead {
		c.halves = 1
	}
	return []charge{c}, err
}

// parseTransaction charges every item of a TransactWriteItems 2 units (DynamoDB's
// price of a transactional write), a condition check as a read.
func parseTransaction(r request) ([]charge, error) {
	out := make([]charge, 0, len(r.TransactItems))
	for _, ti := range r.TransactItems {
		for kind, it := range ti {
			c, err := it.charge(kind != "ConditionCheck", 4)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func (r request) charge(write bool, halves int) (charge, error) {
	attrs := r.Key
	if attrs == nil {
		attrs = r.Item
	}
	raw, ok := attrs[partitionKey]
	if !ok || r.TableName == "" {
		return charge{}, errors.New("no table or partition key")
	}
	var av struct{ S *string }
	if err := json.Unmarshal(raw, &av); err != nil || av.S == nil {
		return charge{}, errors.New("partition key is not a string")
	}
	return charge{item: itemKey{r.TableName, *av.S}, write: write, halves: halves}, nil
}

// admit charges every item of one request, or none of them: it returns nil when the
// request may go, else which charges did not fit.
func (t *Throttle) admit(charges []charge) []bool {
	now := t.cfg.Now()
	refused := make([]bool, len(charges))
	reservations := make([]*rate.Reservation, len(charges))
	t.mu.Lock()
	defer t.mu.Unlock()
	over := false
	for i, c := range charges {
		reservations[i] = t.limiter(c).ReserveN(now, c.halves)
		if !reservations[i].OK() || reservations[i].DelayFrom(now) > 0 {
			refused[i], over = true, true
		}
	}
	for i, c := range charges {
		t.count(c, refused[i], over)
		if over && reservations[i].OK() {
			reservations[i].CancelAt(now)
		}
	}
	if over {
		return refused
	}
	return nil
}

// limiter returns the bucket c draws on; t.mu is held.
func (t *Throttle) limiter(c charge) *rate.Limiter {
	k := t.keys[c.item]
	if k == nil {
		burst := func(perSecond float64) int { return max(int(2*perSecond*t.cfg.Burst.Seconds()), 4) }
		k = &keyState{
			write: rate.NewLimiter(rate.Limit(2*t.cfg.WriteUnits), burst(t.cfg.WriteUnits)),
			read:  rate.NewLimiter(rate.Limit(2*t.cfg.ReadUnits), burst(t.cfg.ReadUnits)),
		}
		t.keys[c.item] = k
	}
	if c.write {
		return k.write
	}
	return k.read
}

// count records c, forwarded unless the request was refused; t.mu is held.
func (t *Throttle) count(c charge, refusedHere, refused bool) {
	s := &t.keys[c.item].stats
	switch {
	case refusedHere && c.write:
		s.ThrottledWrites++
	case refusedHere:
		s.ThrottledReads++
	case refused: // another item of the transaction did not fit
	case c.write:
		s.Writes++
	default:
		s.Reads++
	}
}
