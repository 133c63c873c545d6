package authorizer

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// observe writes the decision's log line and metrics document.
func (h *Handler) observe(ctx context.Context, res *gate.Result, elapsed time.Duration, requestID string) {
	h.metrics.write(res)
	attrs := decisionAttrs(res, elapsed, requestID)
	if h.log == nil {
		h.lines.write(attrs[:], time.Now())
		return
	}
	h.log.LogAttrs(ctx, slog.LevelInfo, "decision", attrs[:]...)
}

// decisionAttrs returns the attributes of the decision line, in order: those of
// Config.Logger's record, and of the line decisionLog writes without slog.
func decisionAttrs(res *gate.Result, elapsed time.Duration, requestID string) [18]slog.Attr {
	return [...]slog.Attr{
		slog.String("request_id", requestID),
		slog.String("tenant", res.TenantID),
		slog.String("identity", res.Identity),
		slog.String("route", res.Route),
		slog.String("rule", res.Rule),
		slog.String("status", res.Status.String()),
		slog.Bool("allowed", res.Status == gate.Allowed),
		slog.Int64("remaining", res.Decision.Remaining),
		slog.Int64("retry_after_s", res.RetryAfterSeconds()),
		slog.Float64("latency_ms", millis(elapsed)),
		slog.Float64("store_latency_ms", millis(res.StoreLatency)),
		slog.Int("round_trips", res.StoreCalls),
		slog.Int("config_round_trips", res.ConfigCalls),
		slog.Bool("cached", res.Cached),
		slog.Bool("fail_open", res.FailOpen),
		slog.Bool("failed_closed", res.FailedClosed),
		slog.Bool("shadow", res.Shadow),
		slog.String("reason", res.Reason),
	}
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// emf writes CloudWatch Embedded Metric Format documents, one JSON line per decision:
// CloudWatch Logs extracts the metrics from the log stream, with no API call. Each
// metric is published twice: per tenant (dimension TenantId) for the dashboard, and
// without dimensions (the empty dimension set) for the alarms, which cannot sum
// across tenants. template.yaml's dashboard and alarms chart these names; a test in
// internal/templatecheck runs this writer and holds the template to what it emits.
type emf struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	prefix string // up to the Namespace's value, included
}

func newEMF(w io.Writer, namespace string) *emf {
	ns, _ := json.Marshal(namespace) // a string always encodes
	return &emf{w: w, prefix: `{"Namespace":` + string(ns) + `,"Dimensions":[["TenantId"],[]],"Metrics":[` +
		`{"Name":"Allowed","Unit":"Count"},{"Name":"Denied","Unit":"Count"},` +
		`{"Name":"Unauthorized","Unit":"Count"},{"Name":"FailOpen","Unit":"Count"},` +
		`{"Name":"FailClosed","Unit":"Count"}`}
}

// write writes the document of res. Tenant ids are [a-z0-9_-]: no escaping is needed.
func (m *emf) write(res *gate.Result) {
	tenantID := cmp.Or(res.TenantID, "unknown")
	m.mu.Lock()
	defer m.mu.Unlock()
	b := append(m.buf[:0], `{"_aws":{"Timestamp":`...)
	b = strconv.AppendInt(b, res.Now/1000, 10)
	b = append(b, `,"CloudWatchMetrics":[`...)
	b = append(b, m.prefix...)
	if res.StoreCalls > 0 {
		b = append(b, `,{"Name":"StoreLatency","Unit":"Milliseconds"}`...)
	}
	b = append(b, `]}]},"TenantId":"`...)
	b = append(b, tenantID...)
	b = append(b, '"')
	b = appendCount(b, "Allowed", res.Status == gate.Allowed)
	b = appendCount(b, "Denied", res.Status == gate.Denied)
	b = appendCount(b, "Unauthorized", res.Status == gate.Unauthorized)
	b = appendCount(b, "FailOpen", res.FailOpen)
	b = appendCount(b, "FailClosed", res.FailedClosed)
	if res.StoreCalls > 0 {
		b = append(b, `,"StoreLatency":`...)
		b = strconv.AppendFloat(b, millis(res.StoreLatency), 'f', 3, 64)
	}
	b = append(b, "}\n"...)
	m.buf = b
	_, _ = m.w.Write(b) // stdout: nothing to do if it fails
}

func appendCount(b []byte, name string, on bool) []byte {
	b = append(b, `,"`...)
	b = append(b, name...)
	if on {
		return append(b, `":1`...)
	}
	return append(b, `":0`...)
}
