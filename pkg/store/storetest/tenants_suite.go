package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TenantsConfig describes the store under test.
type TenantsConfig struct {
	// New returns an empty store for one test, sharing no data with other calls (a
	// table or key prefix of its own), and cleans it up with t.Cleanup.
	New func(t *testing.T) store.Tenants
	// Dump returns every value the store holds, keys and attributes included, as text:
	// the suite checks that no raw API key is among them.
	Dump func(t *testing.T, s store.Tenants) []string
	// DropTenant, when set, deletes the stored tenant id and nothing else (its key
	// records stay), as no method of the store does: for a key whose tenant is gone.
	DropTenant func(t *testing.T, s store.Tenants, id string)
}

// RunTenants runs the conformance suite.
func RunTenants(t *testing.T, cfg TenantsConfig) {
	tests := []struct {
		name string
		run  func(*testing.T, TenantsConfig)
	}{
		{"CreateGet", testCreateGet},
		{"RoundTrip", testRoundTrip},
		{"Replace", testReplace},
		{"ConcurrentReplace", testConcurrentReplace},
		{"Delete", testDelete},
		{"List", testList},
		{"ListChanging", testListChanging},
		{"Keys", testKeys},
		{"KeyNearMisses", testKeyNearMisses},
		{"KeysNotStoredRaw", testKeysNotStoredRaw},
		{"RevokeDelete", testRevokeDelete},
		{"TooManyKeys", testTooManyKeys},
		{"ConcurrentKeys", testConcurrentKeys},
		{"DeleteRacingPutKey", testDeleteRacingPutKey},
		{"PlanVersions", testPlanVersions},
		{"ListPlans", testListPlans},
		{"PlanReferences", testPlanReferences},
		{"DeletePlanRacingCreate", testDeletePlanRacingCreate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, cfg) })
	}
}

// Tenant returns a small valid tenant with id.
func Tenant(id string) tenant.Tenant {
	return tenant.Tenant{ID: id, Rules: []limiter.Rule{{Algorithm: limiter.TokenBucket, Limit: 10, Period: limiter.Every(1e9)}}}.Normalized()
}

func mustCreate(t *testing.T, s store.Tenants, ten tenant.Tenant) tenant.Tenant {
	t.Helper()
	got, err := s.Create(t.Context(), ten)
	if err != nil {
		t.Fatalf("Create(%s): %v", ten.ID, err)
	}
	return got
}

// wantErr fails the test unless errors.Is(err, want).
func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got %v, want %v", what, err, want)
	}
}

// wantFieldError fails the test unless err is a *limiter.FieldError for field.
func wantFieldError(t *testing.T, what string, err error, field string) {
	t.Helper()
	if fe, ok := errors.AsType[*limiter.FieldError](err); !ok || fe.Field != field {
		t.Fatalf("%s: got %v, want a FieldError for %s", what, err, field)
	}
}

func id(prefix string, i int) string { return fmt.Sprintf("%s-%03d", prefix, i) }
