package limiter

import "strconv"

// Scope says whose requests one counter of a rule counts. It is part of the rule's JSON
// ("scope") but not of its arithmetic: a Set decides the same whatever its rules'
// scopes, and the caller (pkg/tenant) keeps one counter per scope value.
type Scope string

// The scopes. The zero Scope means "the default of where the rule stands": ScopeTenant
// for a tenant's rules and its routes' rules, ScopeIP on an anonymous route.
const (
	// ScopeTenant counts all of the tenant's traffic in one counter, shared by every
	// API key and address.
	ScopeTenant Scope = "tenant"
	// ScopeKey gives each API key a counter of its own.
	ScopeKey Scope = "key"
	// ScopeIP gives each client address a counter of its own.
	ScopeIP Scope = "ip"
)

// Scopes lists the scopes in the order counters of one request are listed.
var Scopes = [...]Scope{ScopeTenant, ScopeKey, ScopeIP}

func (s Scope) validate() error {
	switch s {
	case "", ScopeTenant, ScopeKey, ScopeIP:
		return nil
	}
	return &FieldError{Field: "scope", Value: strconv.Quote(string(s)), Reason: "unknown: want one of tenant, key, ip"}
}
