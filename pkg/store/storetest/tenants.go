package storetest

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

func testCreateGet(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	in := Tenant("acme")
	in.Version = 9 // server-managed: Create stores version 1
	got := mustCreate(t, s, in)
	if got.Version != 1 {
		t.Errorf("Create returned version %d, want 1", got.Version)
	}
	stored, err := s.Get(ctx, "acme")
	if err != nil || !reflect.DeepEqual(stored, got) {
		t.Fatalf("Get = %+v, %v; want %+v", stored, err, got)
	}
	_, err = s.Create(ctx, Tenant("acme"))
	wantErr(t, "Create of a taken id", err, store.ErrExists)

	bad := Tenant("bad")
	bad.Rules[0].Limit = 0
	_, err = s.Create(ctx, bad)
	wantFieldError(t, "Create of an invalid tenant", err, "rules[0].limit")
	for _, missing := range []string{"bad", "nobody", "", "../acme", "ACME", "tenant#acme"} {
		_, err = s.Get(ctx, missing)
		wantErr(t, "Get("+strconv.Quote(missing)+")", err, store.ErrNotFound)
	}
}

// testRoundTrip stores a tenant using every field and reads it back unchanged.
func testRoundTrip(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	full, err := tenant.Decode([]byte(`{"id": "full", "timezone": "Europe/Paris", "fail_mode": "open",
	  "status": "suspended", "shadow": true, "generation": 3,
	  "rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 10000, "period": "day"},
	            {"algorithm": "leaky_bucket", "limit": 10, "period": "1s", "burst": 50}],
	  "routes": [{"method": "POST", "resource": "/orders/{id}", "rules": [{"algorithm": "sliding_window", "limit": 5, "period": "1m"}]},
	             {"method": "ANY", "resource": "$default", "rules": [{"algorithm": "fixed_window", "limit": 1, "period": "1s", "anchor": "first_request"}], "anonymous": true}],
	  "metadata": {"plan": "pro", "note": "é \" ✓"},
	  "zone_changes": [{"at": 1781092800000000, "from": "UTC", "to": "Europe/Paris"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	created := mustCreate(t, s, full)
	got, err := s.Get(ctx, "full")
	if err != nil {
		t.Fatal(err)
	}
	full.Version, full.CreationID = 1, created.CreationID
	if created.CreationID == "" || !reflect.DeepEqual(got, full) || !reflect.DeepEqual(created, full) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(full)
		t.Errorf("stored tenant differs:\n got %s\nwant %s", a, b)
	}
	// What a store hands out is a copy.
	got.Rules[0].Limit, got.Metadata["plan"] = 1, "free"
	again, _ := s.Get(ctx, "full")
	if again.Rules[0].Limit != 10000 || again.Metadata["plan"] != "pro" {
		t.Error("changing a returned tenant changed the stored one")
	}
}

func testReplace(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("acme"))
	next := Tenant("acme")
	next.Shadow = true
	got, err := s.Replace(ctx, next, 1)
	if err != nil || got.Version != 2 || !got.Shadow {
		t.Fatalf("Replace = %+v, %v; want version 2", got, err)
	}
	if stored, _ := s.Get(ctx, "acme"); stored.Version != 2 || !stored.Shadow {
		t.Errorf("stored %+v", stored)
	}
	for _, stale := range []int64{1, 0, 3, -1} {
		_, err = s.Replace(ctx, Tenant("acme"), stale)
		wantErr(t, "Replace at version "+strconv.FormatInt(stale, 10), err, store.ErrVersionConflict)
	}
	_, err = s.Replace(ctx, Tenant("nobody"), 1)
	wantErr(t, "Replace of a missing tenant", err, store.ErrNotFound)
	bad := Tenant("acme")
	bad.Timezone = "Nowhere/Land"
	_, err = s.Replace(ctx, bad, 2)
	wantFieldError(t, "Replace with an invalid tenant", err, "timezone")
	if stored, _ := s.Get(ctx, "acme"); stored.Version != 2 || stored.Timezone != "UTC" {
		t.Errorf("a failed Replace changed the tenant: %+v", stored)
	}
}

// testConcurrentReplace races 20 replaces of the same version: exactly one may win, and
// the stored tenant is the winner's.
func testConcurrentReplace(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	mustCreate(t, s, Tenant("race"))
	const writers = 20
	errs := make([]error, writers)
	start := make(chan struct{})
	var done sync.WaitGroup
	for i := range writers {
		done.Go(func() {
			next := Tenant("race")
			next.Metadata = map[string]string{"writer": strconv.Itoa(i)}
			<-start
			_, errs[i] = s.Replace(ctx, next, 1)
		})
	}
	close(start)
	done.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("writers %d and %d both replaced version 1", winner, i)
		case err == nil:
			winner = i
		default:
			wantErr(t, "writer "+strconv.Itoa(i), err, store.ErrVersionConflict)
		}
	}
	if winner < 0 {
		t.Fatal("no writer won")
	}
	got, err := s.Get(ctx, "race")
	if err != nil || got.Version != 2 || got.Metadata["writer"] != strconv.Itoa(winner) {
		t.Fatalf("stored %+v, %v; want version 2 written by %d", got, err, winner)
	}
}

func testDelete(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	first := mustCreate(t, s, Tenant("acme"))
	mustCreate(t, s, Tenant("other"))
	wantErr(t, "Delete at a stale version", s.Delete(ctx, "acme", 2), store.ErrVersionConflict)
	if err := s.Delete(ctx, "acme", 1); err != nil {
		t.Fatal(err)
	}
	_, err := s.Get(ctx, "acme")
	wantErr(t, "Get after Delete", err, store.ErrNotFound)
	wantErr(t, "Delete again", s.Delete(ctx, "acme", 1), store.ErrNotFound)
	wantErr(t, "Delete of an invalid id", s.Delete(ctx, "../other", 1), store.ErrNotFound)
	if _, err := s.Get(ctx, "other"); err != nil {
		t.Errorf("Delete removed another tenant: %v", err)
	}
	again := mustCreate(t, s, Tenant("acme"))
	if again.Version != 1 {
		t.Errorf("re-created at version %d", again.Version)
	}
	// Created again, the tenant counts under new counter keys: its old counters are
	// not its own.
	if got, _ := s.Get(ctx, "acme"); got.CreationID == "" || got.CreationID == first.CreationID {
		t.Errorf("re-created with creation id %q, the first one had %q: the old counters would count", got.CreationID, first.CreationID)
	}
}

// listAll pages through the store with limit, returning the ids in order.
func listAll(t *testing.T, s store.Tenants, limit int) []string {
	return pageIDs(t, s.List, limit, func(ten tenant.Tenant) string { return ten.ID })
}

// pageIDs reads every page of list (Tenants.List or Plans.ListPlans) with limit, in
// order, and returns the ids of what they hold; a page above store.ListLimit(limit)
// fails t.
func pageIDs[T any](t *testing.T, list func(context.Context, int, string) ([]T, string, error), limit int, id func(T) string) []string {
	t.Helper()
	var ids []string
	token := ""
	for range 1000 {
		page, next, err := list(t.Context(), limit, token)
		if err != nil {
			t.Fatalf("listing (%d, %q): %v", limit, token, err)
		}
		if len(page) > store.ListLimit(limit) {
			t.Fatalf("listing (%d) returned %d", limit, len(page))
		}
		for _, v := range page {
			ids = append(ids, id(v))
		}
		if next == "" {
			return ids
		}
		token = next
	}
	t.Fatal("listing never ended")
	return nil
}

func testList(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	if page, next, err := s.List(ctx, 10, ""); err != nil || len(page) != 0 || next != "" {
		t.Fatalf("empty store: %v, %q, %v", page, next, err)
	}
	var want []string
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(23) {
		mustCreate(t, s, Tenant(id("t", i)))
		want = append(want, id("t", i))
	}
	slices.Sort(want)
	first := listAll(t, s, 5)
	if got := slices.Sorted(slices.Values(first)); !slices.Equal(got, want) {
		t.Fatalf("pages hold %v, want each of %v once", first, want)
	}
	for _, limit := range []int{1, 7, 0, 1000} {
		if got := listAll(t, s, limit); !slices.Equal(got, first) {
			t.Errorf("limit %d lists %v, want the stable order %v", limit, got, first)
		}
	}
	for _, bad := range []string{"x", "!!", store.PageToken("")[:3], "YWZ0ZXI6Li4v"} {
		_, _, err := s.List(ctx, 5, bad)
		wantErr(t, "List with token "+strconv.Quote(bad), err, store.ErrPageToken)
	}
}

// testListChanging deletes the last tenant of a page before reading the next page.
func testListChanging(t *testing.T, cfg TenantsConfig) {
	s, ctx := cfg.New(t), t.Context()
	for i := range 12 {
		mustCreate(t, s, Tenant(id("c", i)))
	}
	order := listAll(t, s, 100)
	page, next, err := s.List(ctx, 4, "")
	if err != nil || next == "" || len(page) == 0 {
		t.Fatalf("first page: %d tenants, %q, %v", len(page), next, err)
	}
	last := page[len(page)-1].ID
	if err := s.Delete(ctx, last, 1); err != nil {
		t.Fatal(err)
	}
	seen := len(page)
	for next != "" {
		if page, next, err = s.List(ctx, 4, next); err != nil {
			t.Fatalf("List after deleting %s: %v", last, err)
		}
		for _, ten := range page {
			if ten.ID != order[seen] {
				t.Fatalf("after deleting %s got %s, want %s", last, ten.ID, order[seen])
			}
			seen++
		}
	}
	if seen != len(order) {
		t.Errorf("saw %d tenants, want %d", seen, len(order))
	}
}
