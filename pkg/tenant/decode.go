package tenant

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// MaxJSONBytes bounds the JSON of one tenant that Decode reads.
const MaxJSONBytes = 256 << 10

// ErrSyntax is returned (wrapped) by Decode for input that is not one JSON value, or is
// larger than MaxJSONBytes: errors that name no field.
var ErrSyntax = errors.New("tenant: invalid JSON")

// tenantJSON mirrors Tenant for strict decoding: rules and routes stay raw so that
// their errors carry their paths.
type tenantJSON struct {
	ID          string            `json:"id"`
	Rules       []json.RawMessage `json:"rules"`
	Timezone    string            `json:"timezone"`
	FailMode    FailMode          `json:"fail_mode"`
	Status      Status            `json:"status"`
	Shadow      bool              `json:"shadow"`
	Routes      []json.RawMessage `json:"routes"`
	Metadata    map[string]string `json:"metadata"`
	Version     int64             `json:"version"`
	Generation  int64             `json:"generation"`
	CreationID  string            `json:"creation_id"`
	ZoneChanges []json.RawMessage `json:"zone_changes"`
	Plan        string            `json:"plan"`
	Overrides   []json.RawMessage `json:"overrides"`
}

type overrideJSON struct {
	Rules []json.RawMessage `json:"rules"`
	Until time.Time         `json:"until"`
}

type routeJSON struct {
	Method    string            `json:"method"`
	Resource  string            `json:"resource"`
	Rules     []json.RawMessage `json:"rules"`
	Anonymous bool              `json:"anonymous"`
	Cost      int64             `json:"cost"`
}

const (
	changeFields   = "at, from, to"
	tenantFields   = "id, rules, timezone, fail_mode, status, shadow, routes, metadata, version, generation, creation_id, zone_changes, plan, overrides"
	overrideFields = "rules, until"
	routeFields    = "method, resource, rules, anonymous, cost"
)

// Decode reads one tenant from JSON strictly (unknown fields, non-integer numbers and
// trailing data are errors), fills in its defaults and validates it. Errors name the
// field as a *limiter.FieldError, or wrap ErrSyntax for malformed JSON.
func Decode(data []byte) (Tenant, error) {
	var raw tenantJSON
	if err := strictDecode(data, &raw, "", tenantFields); err != nil {
		return Tenant{}, err
	}
	t := Tenant{ID: raw.ID, Timezone: raw.Timezone, FailMode: raw.FailMode, Status: raw.Status,
		Shadow: raw.Shadow, Metadata: raw.Metadata, Version: raw.Version, Generation: raw.Generation, CreationID: raw.CreationID,
		Plan: raw.Plan}
	var err error
	if t.Overrides, err = decodeList(raw.Overrides, "overrides", MaxOverrides, "a tenant has at most %d overrides", decodeOverride); err != nil {
		return Tenant{}, err
	}
	if t.Rules, err = decodeRules(raw.Rules, "rules"); err != nil {
		return Tenant{}, err
	}
	if t.ZoneChanges, err = decodeList(raw.ZoneChanges, "zone_changes", MaxZoneChanges, "holds at most %d changes", decodeZoneChange); err != nil {
		return Tenant{}, err
	}
	if t.Routes, err = decodeRoutes(raw.Routes); err != nil {
		return Tenant{}, err
	}
	if err := t.Validate(); err != nil {
		return Tenant{}, err
	}
	return t.Normalized(), nil
}

// UnmarshalJSON decodes the tenant as Decode does.
func (t *Tenant) UnmarshalJSON(data []byte) error {
	out, err := Decode(data)
	if err != nil {
		return err
	}
	*t = out
	return nil
}

// decodeList decodes each of raws with decode, which gets the item's path
// ("routes[1]"), after refusing more than most items: reason says so, with most for
// its verb.
func decodeList[T any](raws []json.RawMessage, path string, most int, reason string, decode func(data []byte, path string) (T, error)) ([]T, error) {
	if err := tooMany(path, len(raws), most, reason); err != nil {
		return nil, err
	}
	var out []T
	for i, msg := range raws {
		x, err := decode(msg, path+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// tooMany is the error of a list at field holding n items, more than most (reason
// says so, with most for its verb); nil when n is at most most.
func tooMany(field string, n, most int, reason string) error {
	if n <= most {
		return nil
	}
	return &limiter.FieldError{Field: field, Value: strconv.Itoa(n), Reason: fmt.Sprintf(reason, most)}
}

func decodeRoutes(raws []json.RawMessage) ([]Route, error) {
	return decodeList(raws, "routes", MaxRoutes, "a tenant has at most %d routes", decodeRoute)
}

func decodeRoute(data []byte, path string) (Route, error) {
	var raw routeJSON
	if err := strictDecode(data, &raw, path+".", routeFields); err != nil {
		return Route{}, err
	}
	rules, err := decodeRules(raw.Rules, path+".rules")
	if err != nil {
		return Route{}, err
	}
	return Route{Method: raw.Method, Resource: raw.Resource, Rules: rules, Anonymous: raw.Anonymous, Cost: raw.Cost}, nil
}

func decodeOverride(data []byte, path string) (Override, error) {
	var raw overrideJSON
	if err := strictDecode(data, &raw, path+".", overrideFields); err != nil {
		if errors.Is(err, ErrSyntax) {
			return Override{}, &limiter.FieldError{Field: path + ".until", Reason: "must be an RFC 3339 instant such as \"2026-12-24T00:00:00Z\""}
		}
		return Override{}, err
	}
	rules, err := decodeRules(raw.Rules, path+".rules")
	if err != nil {
		return Override{}, err
	}
	return Override{Rules: rules, Until: raw.Until}, nil
}

func decodeZoneChange(data []byte, path string) (ZoneChange, error) {
	var c ZoneChange
	err := strictDecode(data, &c, path+".", changeFields)
	return c, err
}

// decodeRules decodes each rule with limiter.Rule's strict decoder, placing its errors
// under path ("routes[1].rules").
func decodeRules(raws []json.RawMessage, path string) ([]limiter.Rule, error) {
	return decodeList(raws, path, limiter.MaxRules, "a rule set holds at most %d rules", decodeRule)
}

func decodeRule(data []byte, path string) (limiter.Rule, error) {
	var r limiter.Rule
	if err := json.Unmarshal(data, &r); err != nil {
		if !errors.As(err, new(*limiter.FieldError)) {
			// The value is valid JSON (the outer decoder read it), so the error is
			// its type.
			return limiter.Rule{}, &limiter.FieldError{Field: path, Reason: "must be a JSON object: a rule"}
		}
		return limiter.Rule{}, prefixed(path, err)
	}
	return r, nil
}

// strictDecode decodes exactly one JSON value of at most MaxJSONBytes from data into
// v, refusing unknown fields, and turns errors that name a field into *limiter.FieldError under prefix.
func strictDecode(data []byte, v any, prefix, fields string) error {
	if len(data) > MaxJSONBytes {
		return fmt.Errorf("%w: %d bytes, the most is %d", ErrSyntax, len(data), MaxJSONBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, prefix, fields)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the JSON value", ErrSyntax)
	}
	return nil
}

func decodeError(err error, prefix, fields string) error {
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		return &limiter.FieldError{Field: prefix + cmp.Or(name, `""`), Reason: "unknown field: want one of " + fields}
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		field := strings.TrimSuffix(prefix, ".")
		if te.Field != "" {
			field = prefix + te.Field
		}
		return &limiter.FieldError{Field: cmp.Or(field, "tenant"), Reason: "must be a JSON " + jsonType(te.Type) + ", not a " + te.Value}
	}
	return fmt.Errorf("%w: %v", ErrSyntax, err)
}

// jsonType names the JSON form of a Go type for error messages.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}
