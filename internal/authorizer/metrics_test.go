package authorizer_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// A store failure is counted as FailClosed or FailOpen, by the tenant's fail mode, and
// every metric is published per tenant and in total (the empty dimension set), which
// the template's alarms read.
func TestMetricsOfFailModes(t *testing.T) {
	hs := newHarness(t, "", failingStore{memory.NewCounters(memory.CountersConfig{})})
	ev := restEvent(t, "rest-valid-key")
	if _, err := hs.h.REST(context.Background(), ev); err != nil { // demo fails closed
		t.Fatal(err)
	}
	ev.Headers["X-Api-Key"] = partnerKey // partner fails open
	if _, err := hs.h.REST(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	docs := lines(t, hs.metrics.String())
	if len(docs) != 2 {
		t.Fatalf("%d EMF documents, want 2", len(docs))
	}
	want := []struct {
		tenant                     string
		denied, failClosed, failOp float64
	}{{"demo", 1, 1, 0}, {"partner", 0, 0, 1}}
	for i, w := range want {
		d := docs[i]
		if d["TenantId"] != w.tenant || d["Denied"] != w.denied || d["FailClosed"] != w.failClosed || d["FailOpen"] != w.failOp {
			t.Errorf("document %d: %v, want tenant %s Denied %v FailClosed %v FailOpen %v", i, d, w.tenant, w.denied, w.failClosed, w.failOp)
		}
		dims, _ := json.Marshal(d["_aws"].(map[string]any)["CloudWatchMetrics"].([]any)[0].(map[string]any)["Dimensions"])
		if string(dims) != `[["TenantId"],[]]` {
			t.Errorf("document %d: Dimensions %s, want per tenant and in total", i, dims)
		}
	}
}
