package luascript

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

var (
	_ store.Tenants = (*Tenants)(nil)
	_ store.Plans   = (*Tenants)(nil)
)

var (
	//go:embed create.lua
	createSource string
	//go:embed replace.lua
	replaceSource string
	//go:embed delete.lua
	deleteSource string
	//go:embed putkey.lua
	putKeySource string
	//go:embed changekey.lua
	changeKeySource string
	//go:embed createplan.lua
	createPlanSource string
	//go:embed replaceplan.lua
	replacePlanSource string
	//go:embed deleteplan.lua
	deletePlanSource string

	createScript    = NewScript(createSource)
	replaceScript   = NewScript(replaceSource)
	deleteScript    = NewScript(deleteSource)
	putKeyScript    = NewScript(putKeySource)
	changeKeyScript = NewScript(changeKeySource)

	createPlanScript  = NewScript(createPlanSource)
	replacePlanScript = NewScript(replacePlanSource)
	deletePlanScript  = NewScript(deletePlanSource)
)

// DefaultPrefix starts every key of the tenant stores of pkg/store/upstash and
// pkg/store/redis when their TenantsConfig.Prefix is empty.
const DefaultPrefix = "el:t:"

// maxAttempts bounds the read-then-write loops that retry when another writer changed
// the tenant's keys in between.
const maxAttempts = 10

// ErrBusy is returned when a key change or Delete lost maxAttempts races in a row with
// other writes to the same tenant's keys. Nothing was changed; the call may be retried.
var ErrBusy = errors.New("store: the tenant's keys kept changing; nothing was written")

// Tenants is the store.Tenants and store.Plans over Redis: Upstash's REST API (pkg/store/upstash), or
// RESP (pkg/store/redis). It is safe for concurrent use.
type Tenants struct {
	c    TenantsConn
	l    Layout
	name string // starts its errors
}

// NewTenantsWith returns a Tenants that sends its commands through c, under the key
// names of l; name starts its errors ("store/redis").
func NewTenantsWith(c TenantsConn, l Layout, name string) *Tenants {
	return &Tenants{c: c, l: l, name: name}
}

// fail says what failed, when err is not nil; store's sentinels stay visible to
// errors.Is.
func (s *Tenants) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %s: %w", s.name, what, err)
}

// run runs a script and returns the error its answer means (Outcome).
func (s *Tenants) run(ctx context.Context, script *Script, keys []string, args ...any) error {
	answer, err := s.c.Eval(ctx, script, keys, args...)
	if err != nil {
		return err
	}
	return Outcome(script, answer)
}

// Create stores a new tenant with version 1: create.lua, which checks its plan.
func (s *Tenants) Create(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	t, doc, err := store.EncodeTenant(store.PrepareCreate(t))
	if err != nil {
		return tenant.Tenant{}, err
	}
	keys := []string{s.l.Tenant(t.ID), s.l.IDs(), s.l.Plan(t.Plan), s.l.PlanUsers(t.Plan)}
	if err := s.run(ctx, createScript, keys, string(doc), t.ID, t.Plan); err != nil {
		return tenant.Tenant{}, s.planFail("create "+t.ID, t.Plan, err)
	}
	return t, nil
}

// planFail is fail, but tenant.UnknownPlan for a script's answer that the tenant's
// plan does not exist.
func (s *Tenants) planFail(what, plan string, err error) error {
	if errors.Is(err, errUnknownPlan) {
		return tenant.UnknownPlan(plan)
	}
	return s.fail(what, err)
}

// Get returns the tenant: one HMGET.
func (s *Tenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	return get(s, ctx, "get", id, s.l.Tenant, DecodeTenant)
}

// get reads the hash (doc and version) of id, named by keyOf, and decodes it; what
// labels errors.
func get[T any](s *Tenants, ctx context.Context, what, id string, keyOf func(string) string, decode func(doc, version string) (T, error)) (T, error) {
	var zero T
	if !tenant.ValidID(id) {
		return zero, store.ErrNotFound
	}
	stored, err := s.c.Tenants(ctx, []string{keyOf(id)})
	if err != nil {
		return zero, s.fail(what+" "+id, err)
	}
	if !stored[0].Found {
		return zero, store.ErrNotFound
	}
	v, err := decode(stored[0].Doc, stored[0].Version)
	if err != nil {
		return zero, s.fail(what+" "+id, err)
	}
	return v, nil
}

// Replace stores t when the stored version is ifVersion: it reads the plan the tenant
// is on, then runs replace.lua, which checks that plan is still the one stored and that
// t's exists, and moves the tenant between the plans' users.
func (s *Tenants) Replace(ctx context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t, doc, err := store.EncodeTenant(store.PrepareReplace(t, ifVersion))
	if err != nil {
		return tenant.Tenant{}, err
	}
	for range maxAttempts {
		old, err := s.Get(ctx, t.ID)
		if err != nil {
			return tenant.Tenant{}, err
		}
		keys := []string{s.l.Tenant(t.ID), s.l.Plan(t.Plan), s.l.PlanUsers(t.Plan), s.l.PlanUsers(old.Plan)}
		err = s.run(ctx, replaceScript, keys, strconv.FormatInt(ifVersion, 10), strconv.FormatInt(t.Version, 10), string(doc),
			old.Plan, t.Plan, t.ID)
		if err == nil {
			return t, nil
		}
		if err != ErrRetry {
			return tenant.Tenant{}, s.planFail("replace "+t.ID, t.Plan, err)
		}
	}
	return tenant.Tenant{}, ErrBusy
}
