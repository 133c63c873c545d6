package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Plan returns a small valid plan with id, whose rule allows limit a second.
func Plan(id string, limit int64) tenant.Plan {
	return tenant.Plan{ID: id, Rules: []limiter.Rule{{Name: "rps", Algorithm: limiter.TokenBucket, Limit: limit, Period: limiter.Every(1e9)}}}.Normalized()
}

// OnPlan returns a tenant with id on plan, with no rules of its own.
func OnPlan(id, plan string) tenant.Tenant {
	return tenant.Tenant{ID: id, Plan: plan}.Normalized()
}

// plans returns the store under test as a store.Plans, which every Tenants must be.
func plans(t *testing.T, cfg TenantsConfig) (store.Tenants, store.Plans) {
	t.Helper()
	s := cfg.New(t)
	ps, ok := s.(store.Plans)
	if !ok {
		t.Fatalf("%T does not implement store.Plans", s)
	}
	return s, ps
}

func testPlanVersions(t *testing.T, cfg TenantsConfig) {
	_, ps := plans(t, cfg)
	ctx := t.Context()
	_, err := ps.CreatePlan(ctx, tenant.Plan{ID: "pro"})
	wantFieldError(t, "CreatePlan without rules", err, "rules")
	_, err = ps.GetPlan(ctx, "pro")
	wantErr(t, "GetPlan of a refused plan", err, store.ErrNotFound)
	got, err := ps.CreatePlan(ctx, Plan("pro", 10))
	if err != nil || got.Version != 1 {
		t.Fatalf("CreatePlan: %+v, %v", got, err)
	}
	_, err = ps.CreatePlan(ctx, Plan("pro", 20))
	wantErr(t, "CreatePlan again", err, store.ErrExists)
	_, err = ps.ReplacePlan(ctx, Plan("pro", 20), 2)
	wantErr(t, "ReplacePlan at a stale version", err, store.ErrVersionConflict)
	_, err = ps.ReplacePlan(ctx, Plan("free", 20), 1)
	wantErr(t, "ReplacePlan of a missing plan", err, store.ErrNotFound)
	if got, err = ps.ReplacePlan(ctx, Plan("pro", 20), 1); err != nil || got.Version != 2 {
		t.Fatalf("ReplacePlan: %+v, %v", got, err)
	}
	if got, err = ps.GetPlan(ctx, "pro"); err != nil || got.Version != 2 || got.Rules[0].Limit != 20 {
		t.Fatalf("GetPlan after ReplacePlan: %+v, %v", got, err)
	}
	wantErr(t, "DeletePlan at a stale version", ps.DeletePlan(ctx, "pro", 1), store.ErrVersionConflict)
	if err := ps.DeletePlan(ctx, "pro", 2); err != nil {
		t.Fatal(err)
	}
	_, err = ps.GetPlan(ctx, "pro")
	wantErr(t, "GetPlan after DeletePlan", err, store.ErrNotFound)
	wantErr(t, "DeletePlan again", ps.DeletePlan(ctx, "pro", 2), store.ErrNotFound)
}

func testListPlans(t *testing.T, cfg TenantsConfig) {
	s, ps := plans(t, cfg)
	ctx := t.Context()
	mustCreate(t, s, Tenant("not-a-plan"))
	var want []string
	for i := range 7 {
		p := Plan(fmt.Sprintf("plan-%d", 6-i), 1)
		if _, err := ps.CreatePlan(ctx, p); err != nil {
			t.Fatal(err)
		}
		want = append(want, p.ID)
	}
	slices.Sort(want)
	got := pageIDs(t, ps.ListPlans, 3, func(p tenant.Plan) string { return p.ID })
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("ListPlans pages hold %v, want each of %v once", got, want)
	}
	_, _, err := ps.ListPlans(ctx, 3, "not a token")
	wantErr(t, "ListPlans with a made-up token", err, store.ErrPageToken)
}

// testPlanReferences checks that tenants name only plans that exist and that a plan a
// tenant names is not deleted.
func testPlanReferences(t *testing.T, cfg TenantsConfig) {
	s, ps := plans(t, cfg)
	ctx := t.Context()
	_, err := s.Create(ctx, OnPlan("acme", "pro"))
	wantFieldError(t, "Create on a missing plan", err, "plan")
	_, err = s.Get(ctx, "acme")
	wantErr(t, "Get of a tenant refused", err, store.ErrNotFound)
	pro, _ := ps.CreatePlan(ctx, Plan("pro", 10))
	free, _ := ps.CreatePlan(ctx, Plan("free", 1))
	acme := mustCreate(t, s, OnPlan("acme", "pro"))
	wantInUse(t, ps.DeletePlan(ctx, "pro", pro.Version), "pro", "acme")
	_, err = s.Replace(ctx, OnPlan("acme", "gold"), acme.Version)
	wantFieldError(t, "Replace onto a missing plan", err, "plan")
	if acme, err = s.Replace(ctx, OnPlan("acme", "free"), acme.Version); err != nil {
		t.Fatal(err)
	}
	wantInUse(t, ps.DeletePlan(ctx, "free", free.Version), "free", "acme")
	if err := ps.DeletePlan(ctx, "pro", pro.Version); err != nil {
		t.Fatalf("DeletePlan of a plan the tenant left: %v", err)
	}
	if err := s.Delete(ctx, "acme", acme.Version); err != nil {
		t.Fatal(err)
	}
	if err := ps.DeletePlan(ctx, "free", free.Version); err != nil {
		t.Fatalf("DeletePlan of a plan whose tenant is deleted: %v", err)
	}
}

func wantInUse(t *testing.T, err error, plan, user string) {
	t.Helper()
	if inUse, ok := errors.AsType[*store.PlanInUseError](err); !ok || !errors.Is(err, store.ErrPlanInUse) || inUse.Plan != plan || inUse.Tenant != user {
		t.Fatalf("DeletePlan(%s): got %v, want plan %s in use by %s", plan, err, plan, user)
	}
}

// testDeletePlanRacingCreate races the creation of tenants on a plan with its
// deletion: whichever wins, no tenant is left naming a plan that does not exist.
func testDeletePlanRacingCreate(t *testing.T, cfg TenantsConfig) {
	s, ps := plans(t, cfg)
	ctx := t.Context()
	for round := range 10 {
		plan := fmt.Sprintf("plan-%d", round)
		p, err := ps.CreatePlan(ctx, Plan(plan, 1))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var deleteErr error
		wg.Go(func() { deleteErr = ps.DeletePlan(ctx, plan, p.Version) })
		wg.Go(func() { _, _ = s.Create(ctx, OnPlan(id("t", round), plan)) })
		wg.Wait()
		_, tenantErr := s.Get(ctx, id("t", round))
		_, planErr := ps.GetPlan(ctx, plan)
		switch {
		case deleteErr != nil && !errors.Is(deleteErr, store.ErrPlanInUse):
			t.Fatalf("round %d: DeletePlan: %v", round, deleteErr)
		case tenantErr == nil && planErr != nil:
			t.Fatalf("round %d: the tenant names plan %s, which is gone (%v)", round, plan, planErr)
		case deleteErr == nil && planErr == nil:
			t.Fatalf("round %d: DeletePlan succeeded but the plan is still there", round)
		}
	}
}
