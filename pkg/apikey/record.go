package apikey

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Record is what stores keep of a key: never the key, only its SHA-256.
//
// KeyID names the key within its tenant; Prefix is its display form. Created and
// RevokedAt are microseconds since the Unix epoch. A revoked key stays listed (with
// Revoked set) but no longer authenticates.
type Record struct {
	KeyID     string `json:"key_id"`
	TenantID  string `json:"tenant_id"`
	Hash      string `json:"hash"`
	Prefix    string `json:"prefix"`
	Created   int64  `json:"created"`
	Revoked   bool   `json:"revoked,omitempty"`
	RevokedAt int64  `json:"revoked_at,omitempty"`
	// Rules are the key's own key-scope rules, for its counters only: each replaces
	// the tenant's (or its plan's) key-scope rule of the same name, or adds to them
	// (tenant.Tenant.EffectiveFor). Empty for most keys.
	Rules []limiter.Rule `json:"rules,omitempty"`
}

// Generate makes a new key for tenantID at now (microseconds) and returns it with its
// Record. Show the key to its owner once; store only the record.
func Generate(tenantID string, now int64) (Key, Record) {
	k := New()
	return k, NewRecord(k, tenantID, now)
}

// NewRecord returns the record of key k for tenantID, created at now.
func NewRecord(k Key, tenantID string, now int64) Record {
	return Record{KeyID: k.ID(), TenantID: tenantID, Hash: k.Hash(), Prefix: k.Prefix(), Created: now}
}

// Matches reports, in constant time, whether the record is for the key whose hash is
// hash. It does not look at Revoked.
func (r Record) Matches(hash string) bool { return Equal(r.Hash, hash) }

// Validate checks the record's key id, hash, prefix and times. It does not check the
// tenant id, which is the tenant package's to define; TenantID must not be empty.
func (r Record) Validate() error {
	switch {
	case r.TenantID == "":
		return errors.New("apikey: record: tenant_id is required")
	case !ValidKeyID(r.KeyID):
		return fmt.Errorf("apikey: record: key_id %s: must be %d lowercase letters or digits", strconv.Quote(r.KeyID), KeyIDLen)
	case !ValidHash(r.Hash):
		// The value is not quoted: a raw key pasted here by mistake must not be echoed.
		return fmt.Errorf("apikey: record %s: hash: must be %d lowercase hex digits (the SHA-256 of the key, as `edgelimit keys hash` prints it)", r.KeyID, HashLen)
	case r.Prefix != Prefix(r.KeyID):
		return fmt.Errorf("apikey: record %s: prefix %s: want %s", r.KeyID, strconv.Quote(r.Prefix), strconv.Quote(Prefix(r.KeyID)))
	case r.Created < 0 || r.RevokedAt < 0:
		return fmt.Errorf("apikey: record %s: times must not be negative", r.KeyID)
	case !r.Revoked && r.RevokedAt != 0:
		return fmt.Errorf("apikey: record %s: revoked_at is set but revoked is false", r.KeyID)
	}
	return ValidateRules(r.Rules)
}

// ValidateRules checks a key's own rules (Record.Rules): none, or a valid rule set
// whose rules are of scope key (or none, which means key). The error is a
// *limiter.FieldError under "rules".
func ValidateRules(rules []limiter.Rule) error {
	if len(rules) == 0 {
		return nil
	}
	if _, err := limiter.NewSet(rules, nil); err != nil {
		return err
	}
	for i, rule := range rules {
		if rule.Scope != "" && rule.Scope != limiter.ScopeKey {
			return &limiter.FieldError{Field: "rules[" + strconv.Itoa(i) + "].scope", Value: strconv.Quote(string(rule.Scope)),
				Reason: "a key's own rules count its requests alone: use scope key (their default)"}
		}
	}
	return nil
}

// Revoke returns the record revoked at now; a revoked record is returned unchanged.
func (r Record) Revoke(now int64) Record {
	if !r.Revoked {
		r.Revoked, r.RevokedAt = true, now
	}
	return r
}
