package tenant

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// FailMode says what the authorizer answers when the backend fails within its latency
// budget.
type FailMode string

// The fail modes. The default is FailClosed.
const (
	FailOpen   FailMode = "open"   // allow the request, flagged failOpen
	FailClosed FailMode = "closed" // deny the request
)

// Status says whether a tenant's keys are accepted.
type Status string

// The statuses. The default is StatusActive.
const (
	StatusActive    Status = "active"
	StatusSuspended Status = "suspended" // every key of the tenant gets 401
)

// Bounds on a tenant, checked by Validate.
const (
	MaxIDLen         = 63  // bytes in an id; see ValidID
	MaxRoutes        = 64  // routes per tenant
	MaxMetadata      = 32  // metadata entries
	MaxMetadataKey   = 64  // bytes in a metadata key
	MaxMetadataValue = 256 // bytes in a metadata value
	MaxZoneChanges   = 16  // zone changes still taking effect
	MaxTimezoneLen   = 64  // bytes in a zone name
	MaxResourceLen   = 256 // bytes in a route's resource
	DefaultTimezone  = "UTC"
	DefaultFailMode  = FailClosed
	DefaultStatus    = StatusActive
)

// Tenant is one customer of the API: its rules, time zone, fail mode, status, shadow
// mode, per-route rules and metadata, as the admin API and the tenants file write them
// (see the package doc for the JSON).
//
// The zero Tenant is not valid: it lacks an id and rules. Normalized fills in the
// defaults (time zone UTC, fail mode closed, status active, rule names); Decode returns
// tenants already normalized and validated.
//
// Plan names the tenant's Plan, whose rules and routes its own add to and replace by
// name; Overrides are temporary changes of its rules that end by themselves (see
// Effective for the merge). A tenant on a plan may have no rules of its own.
//
// Version, Generation, CreationID and ZoneChanges are server-managed. Version counts
// the stored revisions (1 on creation) and is the admin API's ETag. Generation is part
// of every counter key: Reset bumps it, so a reset starts every counter afresh without
// scanning them. CreationID is drawn at random when the tenant is created
// (NewCreationID) and is part of every counter key too, so a tenant deleted and created
// again under the same id starts afresh, version 1 and generation 0 again included; it
// is "" for a tenant created before creation ids, whose counter keys stay as they were. ZoneChanges is the history of time-zone changes that may still be taking effect
// (see ApplyUpdate); Timezone is always the zone the tenant asked for last.
type Tenant struct {
	ID          string            `json:"id"`
	Rules       []limiter.Rule    `json:"rules"`
	Timezone    string            `json:"timezone"`
	FailMode    FailMode          `json:"fail_mode"`
	Status      Status            `json:"status"`
	Shadow      bool              `json:"shadow"`
	Routes      []Route           `json:"routes,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Version     int64             `json:"version"`
	Generation  int64             `json:"generation"`
	CreationID  string            `json:"creation_id,omitempty"`
	ZoneChanges []ZoneChange      `json:"zone_changes,omitempty"`
	Plan        string            `json:"plan,omitempty"`
	Overrides   []Override        `json:"overrides,omitempty"`
}

// Normalized returns a copy of t with its defaults filled in: the time zone, fail mode
// and status, each rule's name and burst (limiter.Rule.Normalized), and each rule's
// scope (tenant, or ip on an anonymous route: Route.DefaultScope). Empty lists and
// maps become nil, so that a tenant survives a JSON round trip unchanged.
func (t Tenant) Normalized() Tenant {
	t = t.Clone()
	t.Timezone = cmp.Or(t.Timezone, DefaultTimezone)
	t.FailMode = cmp.Or(t.FailMode, DefaultFailMode)
	t.Status = cmp.Or(t.Status, DefaultStatus)
	normalizeRules(t.Rules, limiter.ScopeTenant)
	for _, r := range t.Routes {
		normalizeRules(r.Rules, r.DefaultScope())
	}
	if len(t.Routes) == 0 {
		t.Routes = nil
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	if len(t.ZoneChanges) == 0 {
		t.ZoneChanges = nil
	}
	t.Overrides = normalizeOverrides(t.Overrides)
	return t
}

// normalizeRules fills in each rule's defaults, and scope where it has none.
func normalizeRules(rules []limiter.Rule, scope limiter.Scope) {
	for i := range rules {
		rules[i] = rules[i].Normalized()
		if rules[i].Scope == "" {
			rules[i].Scope = scope
		}
	}
}

// Clone returns a deep copy of t: changing the copy's slices or maps leaves t as it was.
func (t Tenant) Clone() Tenant {
	t.Rules = slices.Clone(t.Rules)
	t.Routes = cloneEach(t.Routes, func(r Route) Route { r.Rules = slices.Clone(r.Rules); return r })
	t.Metadata = maps.Clone(t.Metadata)
	t.ZoneChanges = slices.Clone(t.ZoneChanges)
	t.Overrides = cloneEach(t.Overrides, func(o Override) Override { o.Rules = slices.Clone(o.Rules); return o })
	return t
}

// cloneEach returns a copy of xs with each item copied by clone; nil stays nil.
func cloneEach[T any](xs []T, clone func(T) T) []T {
	out := slices.Clone(xs)
	for i, x := range out {
		out[i] = clone(x)
	}
	return out
}

// Active reports whether the tenant's keys are accepted.
func (t Tenant) Active() bool { return t.Status == StatusActive || t.Status == "" }

// ValidID reports whether id is a valid tenant id: 1 to 63 bytes of lowercase ASCII
// letters, digits, '_' and '-', starting with a letter or a digit
// (^[a-z0-9][a-z0-9_-]{0,62}$). Ids appear in storage keys and URLs as they are.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > MaxIDLen || id[0] == '_' || id[0] == '-' {
		return false
	}
	return asciiOnly(id, false, "_-")
}

// asciiOnly reports whether every byte of s is an ASCII digit, a lowercase letter, an
// uppercase letter when upper is set, or one of the bytes of extra.
func asciiOnly(s string, upper bool, extra string) bool {
	return !strings.ContainsFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || upper && c >= 'A' && c <= 'Z' || strings.ContainsRune(extra, c))
	})
}
