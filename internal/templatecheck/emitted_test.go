package templatecheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// emission is what the authorizer's EMF documents declare: the namespace, each metric
// with its unit, and the dimension sets every metric is published under.
type emission struct {
	namespace     string
	units         map[string]string // metric name -> unit
	dimensionSets [][]string        // each sorted
}

// hasDimensions reports whether keys (in any order) is one of the dimension sets.
func (e emission) hasDimensions(keys []string) bool {
	keys = slices.Sorted(slices.Values(keys))
	return slices.ContainsFunc(e.dimensionSets, func(set []string) bool { return slices.Equal(set, keys) })
}

// emitted runs the real authorizer on an allowed, an unauthorized and a fail-closed
// decision, as the Lambda function runs it (its default namespace), and reads the EMF
// documents it writes: the template is checked against these, not against a list.
func emitted(t *testing.T) emission {
	t.Helper()
	ctx := context.Background()
	const now = 1_780_000_000_000_000 // an instant in 2026, in microseconds
	tenants := memory.NewTenants()
	tn, err := tenant.Decode([]byte(`{"id": "sample", "fail_mode": "closed", "rules": [{"algorithm": "fixed_window", "limit": 10, "period": "1m"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tenants.Create(ctx, tenant.ApplyCreate(tn)); err != nil {
		t.Fatal(err)
	}
	key, rec := apikey.Generate(tn.ID, now)
	if err := tenants.PutKey(ctx, rec); err != nil {
		t.Fatal(err)
	}
	counters := &switchable{Counters: memory.NewCounters(memory.CountersConfig{})}
	g, err := gate.New(gate.Config{Tenants: tenants, Counters: counters, Now: func() int64 { return now }})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	h, err := authorizer.New(authorizer.Config{Gate: g, Metrics: &out, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		down bool
	}{{key.Reveal(), false}, {"elk_unknown1_" + strings.Repeat("A", 43), false}, {key.Reveal(), true}} {
		counters.down.Store(c.down)
		ev := events.APIGatewayCustomAuthorizerRequestTypeRequest{Type: "REQUEST", HTTPMethod: "GET", Resource: "/hello", Path: "/hello",
			MethodArn: "arn:aws:execute-api:us-east-1:123456789012:api/v1/GET/hello", Headers: map[string]string{"x-api-key": c.key}}
		if _, err := h.REST(ctx, ev); err != nil && !errors.Is(err, authorizer.ErrUnauthorized) {
			t.Fatal(err)
		}
	}
	epochs := &changingEpoch{Tenants: tenants}
	eg, err := gate.New(gate.Config{Tenants: epochs, Counters: counters, Now: func() int64 { return now }, EpochLog: &out})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the first read remembers the epoch, the second finds it changed
		if _, err := eg.CheckEpoch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return parseEMF(t, out.Bytes())
}

// changingEpoch is a tenant store whose epoch marker changes at every read: the gate
// writes its epoch-change line, an EMF document, at the second.
type changingEpoch struct {
	*memory.Tenants
	reads int
}

func (c *changingEpoch) Epoch(context.Context) (string, error) {
	c.reads++
	return fmt.Sprint("epoch", c.reads), nil
}

// switchable is a counter store that can be taken down.
type switchable struct {
	store.Counters
	down atomic.Bool
}

func (s *switchable) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	if s.down.Load() {
		return errors.New("connection refused")
	}
	return s.Counters.Decide(ctx, cs, now, cost, outs)
}

// parseEMF reads EMF documents, one a line, checking that each declared metric and
// dimension is a member of its document, as CloudWatch requires.
func parseEMF(t *testing.T, data []byte) emission {
	t.Helper()
	e := emission{units: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	docs := 0
	for sc.Scan() {
		docs++
		var doc map[string]any
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			t.Fatalf("EMF line %q: %v", sc.Text(), err)
		}
		var meta struct {
			CloudWatchMetrics []struct {
				Namespace  string
				Dimensions [][]string
				Metrics    []struct{ Name, Unit string }
			}
		}
		raw, _ := json.Marshal(doc["_aws"])
		if err := json.Unmarshal(raw, &meta); err != nil || len(meta.CloudWatchMetrics) != 1 {
			t.Fatalf("EMF document %s: want one metric directive (%v)", sc.Text(), err)
		}
		dir := meta.CloudWatchMetrics[0]
		if e.namespace != "" && dir.Namespace != e.namespace {
			t.Fatalf("EMF documents in namespaces %q and %q", e.namespace, dir.Namespace)
		}
		e.namespace = dir.Namespace
		for _, m := range dir.Metrics {
			if _, ok := doc[m.Name].(float64); !ok {
				t.Errorf("EMF document declares %s but has no number for it: %s", m.Name, sc.Text())
			}
			e.units[m.Name] = m.Unit
		}
		for _, set := range dir.Dimensions {
			for _, k := range set {
				if _, ok := doc[k].(string); !ok {
					t.Errorf("EMF document declares dimension %s but has no string for it: %s", k, sc.Text())
				}
			}
			set = slices.Sorted(slices.Values(set))
			if !e.hasDimensions(set) {
				e.dimensionSets = append(e.dimensionSets, set)
			}
		}
	}
	if docs != 4 || e.namespace == "" || len(e.units) == 0 {
		t.Fatalf("%d EMF documents, namespace %q, %d metrics: want 4 documents declaring metrics (3 decisions, an epoch change)", docs, e.namespace, len(e.units))
	}
	sort.Slice(e.dimensionSets, func(i, j int) bool { return len(e.dimensionSets[i]) < len(e.dimensionSets[j]) })
	return e
}
