package console

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// MaxSeconds is how far back Traffic remembers, and the most a request may ask for.
const MaxSeconds = 300

// Counts are the decisions of one second (or of a whole window), by answer.
type Counts struct {
	Allowed      int64 `json:"allowed"`
	Denied       int64 `json:"denied"`
	Unauthorized int64 `json:"unauthorized"`
	FailOpen     int64 `json:"fail_open"`
	FailClosed   int64 `json:"fail_closed"`
}

func (c *Counts) add(o Counts) {
	c.Allowed += o.Allowed
	c.Denied += o.Denied
	c.Unauthorized += o.Unauthorized
	c.FailOpen += o.FailOpen
	c.FailClosed += o.FailClosed
}

// Traffic counts the authorizer's decisions per tenant and second, from the CloudWatch
// Embedded Metric Format documents it writes: give it to authorizer.Config.Metrics.
// It keeps the last MaxSeconds before the newest decision, and serves them as JSON
// (GET TrafficPath). Create it with NewTraffic; it is safe for concurrent use.
type Traffic struct {
	now     func() int64
	mu      sync.Mutex
	partial []byte                      // an unfinished line
	seconds map[string]map[int64]Counts // tenant -> Unix second -> counts
}

var _ io.Writer = (*Traffic)(nil) // authorizer.Config.Metrics

// NewTraffic returns an empty Traffic; now is the clock the endpoint reads windows at
// (microseconds since the Unix epoch; nil means the system clock).
func NewTraffic(now func() int64) *Traffic {
	if now == nil {
		now = func() int64 { return limiter.Micros(time.Now()) }
	}
	return &Traffic{now: now, seconds: map[string]map[int64]Counts{}}
}

// emfDocument is what Traffic reads of one EMF document.
type emfDocument struct {
	AWS struct {
		Timestamp int64 `json:"Timestamp"` // milliseconds since the Unix epoch
	} `json:"_aws"`
	TenantID     string  `json:"TenantId"`
	Allowed      float64 `json:"Allowed"`
	Denied       float64 `json:"Denied"`
	Unauthorized float64 `json:"Unauthorized"`
	FailOpen     float64 `json:"FailOpen"`
	FailClosed   float64 `json:"FailClosed"`
}

// Write takes EMF documents, one JSON object a line; a line that is not one is skipped.
func (t *Traffic) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	data := append(t.partial, p...)
	t.partial = nil
	for line := range bytes.Lines(data) {
		if line, ok := bytes.CutSuffix(line, []byte("\n")); ok {
			t.count(line)
		} else {
			t.partial = slices.Clone(line)
		}
	}
	return len(p), nil
}

func (t *Traffic) count(line []byte) {
	var d emfDocument
	if json.Unmarshal(line, &d) != nil || d.AWS.Timestamp == 0 {
		return
	}
	sec := d.AWS.Timestamp / 1000
	byTenant := t.seconds[d.TenantID]
	if byTenant == nil {
		byTenant = map[int64]Counts{}
		t.seconds[d.TenantID] = byTenant
	}
	c := byTenant[sec]
	c.add(Counts{Allowed: int64(d.Allowed), Denied: int64(d.Denied), Unauthorized: int64(d.Unauthorized),
		FailOpen: int64(d.FailOpen), FailClosed: int64(d.FailClosed)})
	byTenant[sec] = c
	for s := range byTenant {
		if s <= sec-MaxSeconds {
			delete(byTenant, s)
		}
	}
}

// Second is one second of a traffic answer.
type Second struct {
	T int64 `json:"t"` // Unix seconds
	Counts
}

// trafficJSON is the body of GET TrafficPath.
type trafficJSON struct {
	TenantID string   `json:"tenant_id"` // "" for every tenant
	At       string   `json:"at"`
	Seconds  []Second `json:"seconds"` // oldest first, one per second up to At
	Totals   Counts   `json:"totals"`
}

// Window returns the counts of the last n seconds up to now (the current second
// included), oldest first, for one tenant or, with tenantID "", all of them.
func (t *Traffic) Window(tenantID string, n int, now int64) []Second {
	t.mu.Lock()
	defer t.mu.Unlock()
	end := now / 1_000_000
	out := make([]Second, 0, n)
	for s := end - int64(n) + 1; s <= end; s++ {
		sec := Second{T: s}
		for id, byTenant := range t.seconds {
			if tenantID == "" || id == tenantID {
				sec.add(byTenant[s])
			}
		}
		out = append(out, sec)
	}
	return out
}

// ServeHTTP answers GET TrafficPath?tenant_id=&seconds= (default 60).
func (t *Traffic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		admin.WriteProblem(w, r, "method-not-allowed", "", "use GET")
		return
	}
	q := r.URL.Query()
	n := 60
	if s := q.Get("seconds"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 || n > MaxSeconds {
			admin.WriteProblem(w, r, "invalid-parameter", "seconds", "must be a whole number from 1 to "+strconv.Itoa(MaxSeconds))
			return
		}
	}
	now := t.now()
	out := trafficJSON{TenantID: q.Get("tenant_id"), At: time.UnixMicro(now).UTC().Format(time.RFC3339Nano)}
	out.Seconds = t.Window(out.TenantID, n, now)
	for _, s := range out.Seconds {
		out.Totals.add(s.Counts)
	}
	writeJSON(w, http.StatusOK, out)
}
