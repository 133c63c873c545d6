package apply

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Object is one plan or tenant as JSON decodes it (numbers as json.Number), in the
// normal form of Normalize: equal objects are equal maps.
type Object = map[string]any

// Key is a key entry of the file: its tenant and status. It holds no secret.
type Key struct {
	Tenant string `json:"tenant"`
	Status string `json:"status"`
}

// The key statuses.
const (
	KeyActive  = "active"
	KeyRevoked = "revoked"
)

// State is a set of plans, tenants and keys: what a file asks for (Parse) or what a
// server holds (Read). Plans and Tenants are keyed by id, Keys by key id.
type State struct {
	Plans   map[string]Object
	Tenants map[string]Object
	Keys    map[string]Key
	// etags are the ETags of what Read read, by ref; empty for a parsed file.
	etags map[ref]string
	// plansServed says whether the server answered GET /plans (Read only).
	plansServed bool
	// ownRules are, by tenant id, the keys with own rules of the tenants whose keys
	// Read or Refresh read (an empty list for none); a tenant absent is unread.
	ownRules map[string][]ownRules
}

// ownRules are the own rules of one key (POST /tenants/{id}/keys with rules): the
// admin API checks a tenant's write against each key's, and apply leaves them as they
// are (a file's key holds no rules).
type ownRules struct {
	keyID string
	rules []limiter.Rule
}

// ref names one object: its kind ("plan", "tenant", "key") and id.
type ref struct{ kind, id string }

func newState() *State {
	return &State{Plans: map[string]Object{}, Tenants: map[string]Object{}, Keys: map[string]Key{}, etags: map[ref]string{},
		ownRules: map[string][]ownRules{}}
}

// fileJSON is the file's JSON, each object kept raw for its own decoding.
type fileJSON struct {
	Plans   []json.RawMessage          `json:"plans"`
	Tenants []json.RawMessage          `json:"tenants"`
	Keys    map[string]json.RawMessage `json:"keys"`
}

// Encode writes s as a file: JSON (indented) or, with yaml, YAML. Lists are in id
// order and objects' fields in a fixed order (id first), so an export of the same state
// is the same text.
func Encode(s *State, yaml bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\"plans\": [")
	writeObjects(&b, s.Plans)
	b.WriteString("],\n\"tenants\": [")
	writeObjects(&b, s.Tenants)
	keys, _ := json.Marshal(s.Keys) // in key id order
	if s.Keys == nil {
		keys = []byte("{}")
	}
	b.WriteString("],\n\"keys\": ")
	b.Write(keys)
	b.WriteString("}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("apply: encoding: %w", err)
	}
	out.WriteByte('\n')
	if yaml {
		return jsonToYAML(out.Bytes())
	}
	return out.Bytes(), nil
}

func writeObjects(b *bytes.Buffer, objs map[string]Object) {
	for i, id := range slices.Sorted(maps.Keys(objs)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(compact(objs[id]))
	}
}

// fieldOrder is the order in which compact writes the fields it knows, at any depth;
// other fields follow in lexical order.
var fieldOrder = []string{"id", "name", "plan", "method", "resource", "anonymous", "algorithm", "limit", "period", "burst", "anchor", "scope",
	"rules", "routes", "timezone", "fail_mode", "status", "shadow", "metadata"}

// compact is v as one line of JSON, the fields of objects in fieldOrder.
func compact(v any) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	switch v := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.SortedFunc(maps.Keys(v), byFieldOrder) {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, k)
			b.WriteString(": ")
			writeValue(b, v[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	default:
		data, err := json.Marshal(v)
		if err != nil {
			data = []byte(`"?"`) // Normalize's values are all JSON values
		}
		b.Write(data)
	}
}

// byFieldOrder compares field names in fieldOrder, then lexically.
func byFieldOrder(x, y string) int {
	return cmp.Or(orderOf(x)-orderOf(y), strings.Compare(x, y))
}

func orderOf(field string) int {
	if i := slices.Index(fieldOrder, field); i >= 0 {
		return i
	}
	return len(fieldOrder)
}
