package tenant

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Validate checks t against the contract and its bounds and returns the first problem
// as a *limiter.FieldError whose Field is a path such as "routes[1].rules[0].limit".
// Fields left empty that have defaults (timezone, fail_mode, status, rule names) are
// valid: Normalized fills them in. A tenant that names a plan may have no rules; that
// the plan exists, and that its rules merge with the tenant's, is CheckMerge's check.
func (t Tenant) Validate() error {
	checks := []func() error{
		t.validateID, t.validateRules, t.validateTimezone, t.validateModes,
		t.validateRoutes, t.validateMetadata, t.validateCounters, t.validateZoneChanges,
		t.validatePlan, t.validateOverrides,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (t Tenant) validateID() error {
	if t.ID == "" {
		return &limiter.FieldError{Field: "id", Reason: "is required"}
	}
	if !ValidID(t.ID) {
		return &limiter.FieldError{Field: "id", Value: strconv.Quote(t.ID),
			Reason: "must be 1 to 63 lowercase letters, digits, '_' or '-', starting with a letter or digit"}
	}
	return nil
}

func (t Tenant) validateRules() error {
	if t.Plan != "" && len(t.Rules) == 0 {
		return nil // the plan's rules apply
	}
	_, err := limiter.NewSet(t.Rules, nil)
	return err // NewSet's paths already start with "rules"
}

func (t Tenant) validateTimezone() error {
	if t.Timezone == "" {
		return nil
	}
	_, err := loadZone("timezone", t.Timezone)
	return err
}

// loadZone loads the IANA zone name of field; the error is a *limiter.FieldError
// naming field when this binary cannot load it.
func loadZone(field, name string) (*time.Location, error) {
	loc, err := LoadLocation(name)
	if err != nil {
		return nil, &limiter.FieldError{Field: field, Value: strconv.Quote(name), Reason: err.Error()}
	}
	return loc, nil
}

func (t Tenant) validateModes() error {
	switch t.FailMode {
	case "", FailOpen, FailClosed:
	default:
		return &limiter.FieldError{Field: "fail_mode", Value: strconv.Quote(string(t.FailMode)), Reason: `must be "open" or "closed" (default "closed")`}
	}
	switch t.Status {
	case "", StatusActive, StatusSuspended:
	default:
		return &limiter.FieldError{Field: "status", Value: strconv.Quote(string(t.Status)), Reason: `must be "active" or "suspended" (default "active")`}
	}
	return nil
}

func (t Tenant) validateRoutes() error {
	if err := tooMany("routes", len(t.Routes), MaxRoutes, "a tenant has at most %d routes"); err != nil {
		return err
	}
	seen := make(map[string]int, len(t.Routes))
	for i, r := range t.Routes {
		path := "routes[" + strconv.Itoa(i) + "]"
		if err := r.validate(); err != nil {
			return prefixed(path, err)
		}
		if err := r.validateCost(t.Rules); err != nil {
			return prefixed(path, err)
		}
		if j, dup := seen[r.Name()]; dup {
			return &limiter.FieldError{Field: path, Value: strconv.Quote(r.Name()), Reason: fmt.Sprintf("repeats routes[%d]: one route per method and resource", j)}
		}
		seen[r.Name()] = i
	}
	return nil
}

func (r Route) validate() error {
	if !slices.Contains(methods, r.Method) {
		return &limiter.FieldError{Field: "method", Value: strconv.Quote(r.Method), Reason: "must be one of " + strings.Join(methods, ", ")}
	}
	if !validResource(r.Resource) {
		return &limiter.FieldError{Field: "resource", Value: strconv.Quote(r.Resource),
			Reason: fmt.Sprintf("must be an API Gateway resource path such as \"/orders/{id}\" (printable, no spaces, '?' or '#', at most %d bytes) or \"$default\"", MaxResourceLen)}
	}
	if r.Resource == DefaultRoute && r.Method != MethodAny {
		return &limiter.FieldError{Field: "method", Value: strconv.Quote(r.Method), Reason: `the "$default" route takes every method: use ANY`}
	}
	if _, err := limiter.NewSet(r.Rules, nil); err != nil {
		return err
	}
	for i, rule := range r.Rules {
		if r.Anonymous && rule.Scope == limiter.ScopeKey {
			return &limiter.FieldError{Field: "rules[" + strconv.Itoa(i) + "].scope", Value: `"key"`,
				Reason: "an anonymous route counts requests without an API key: use scope ip (its default) or tenant"}
		}
	}
	return nil
}

func (t Tenant) validateMetadata() error {
	if err := tooMany("metadata", len(t.Metadata), MaxMetadata, "holds at most %d entries"); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(t.Metadata)) {
		field := "metadata[" + strconv.Quote(k) + "]"
		if !validMetadataKey(k) {
			return &limiter.FieldError{Field: field, Reason: fmt.Sprintf("a key is 1 to %d letters, digits, '_', '-', '.', ':' or '/'", MaxMetadataKey)}
		}
		if v := t.Metadata[k]; len(v) > MaxMetadataValue || !printable(v) {
			return &limiter.FieldError{Field: field, Reason: fmt.Sprintf("a value is at most %d bytes of printable UTF-8", MaxMetadataValue)}
		}
	}
	return nil
}

func validMetadataKey(k string) bool {
	return len(k) > 0 && len(k) <= MaxMetadataKey && asciiOnly(k, true, "_-.:/")
}

func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' })
}

func (t Tenant) validateCounters() error {
	if t.Version < 0 {
		return &limiter.FieldError{Field: "version", Value: strconv.FormatInt(t.Version, 10), Reason: "must not be negative"}
	}
	if t.Generation < 0 {
		return &limiter.FieldError{Field: "generation", Value: strconv.FormatInt(t.Generation, 10), Reason: "must not be negative"}
	}
	if !validCreationID(t.CreationID) {
		return &limiter.FieldError{Field: "creation_id", Value: strconv.Quote(t.CreationID), Reason: "must be empty or up to 32 lowercase letters and digits"}
	}
	return nil
}

// prefixed returns err with its field path placed under prefix ("routes[1]").
func prefixed(prefix string, err error) error {
	if fe, ok := errors.AsType[*limiter.FieldError](err); ok {
		return &limiter.FieldError{Field: prefix + "." + fe.Field, Value: fe.Value, Reason: fe.Reason}
	}
	return fmt.Errorf("%s: %w", prefix, err)
}
