package authorizer_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/authorizer"
	"github.com/edgelimit/edgelimit/internal/upstashrest"
	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
	"github.com/edgelimit/edgelimit/pkg/store/upstash"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// marker stands for stored bytes: it is in the key record, the tenant document or the
// counter reply the fake Upstash answers, and must reach no error and no log line.
const marker = "SECRET-MARKER"

var (
	markerRecord = `{"hash":"h","tenant_id":"demo","key_id":"` + marker + `"}`
	markerB64    = base64.StdEncoding.EncodeToString([]byte(markerRecord))
	markerPage   = "<html><body>" + marker + " " + markerB64 + "</body></html>"
)

// fakeUpstash answers each request with answer(its path, its command's name).
func fakeUpstash(t *testing.T, answer func(path, cmd string) (int, string)) *upstashrest.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var one []string
		var many [][]string
		cmd := ""
		if json.Unmarshal(body, &one) == nil && len(one) > 0 {
			cmd = one[0]
		} else if json.Unmarshal(body, &many) == nil && len(many) > 0 && len(many[0]) > 0 {
			cmd = many[0][0]
		}
		status, reply := answer(r.URL.Path, cmd)
		w.WriteHeader(status)
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	c, err := upstashrest.NewClient(upstashrest.Config{URL: srv.URL, Token: "test-token"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// seenErrors keeps the errors the stores return to the gate.
type seenErrors struct {
	mu   sync.Mutex
	errs []error
}

func (s *seenErrors) add(err error) error {
	if err != nil {
		s.mu.Lock()
		s.errs = append(s.errs, err)
		s.mu.Unlock()
	}
	return err
}

type watchedTenants struct {
	gate.Tenants
	seen *seenErrors
}

func (w watchedTenants) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	rec, err := w.Tenants.LookupKey(ctx, hash)
	return rec, w.seen.add(err)
}

func (w watchedTenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	t, err := w.Tenants.Get(ctx, id)
	return t, w.seen.add(err)
}

type watchedCounters struct {
	store.Counters
	seen *seenErrors
}

func (w watchedCounters) Decide(ctx context.Context, cs []store.Counter, now, cost int64, outs []limiter.Decision) error {
	return w.seen.add(w.Counters.Decide(ctx, cs, now, cost, outs))
}

// A store whose reply holds a key record, a tenant document or a counter's bytes, and
// is malformed, of the wrong shape or an error page, fails the request with a fail
// mode; neither the store's error nor the decision line the authorizer writes for it
// holds the bytes, as sent or in base64.
func TestFailModeLogsNoStoreBytes(t *testing.T) {
	tests := []struct {
		name     string
		event    string
		counters bool // the counter store is the fake, else the tenant store
		path     string
		status   int
		body     string
		want     error
	}{
		{"key record in a truncated reply", "rest-valid-key", false, "/", 200, `{"result":"` + markerB64 + `"`, upstashrest.ErrMalformedReply},
		{"key record in a reply of the wrong kind", "rest-valid-key", false, "/", 200, `{"result":["` + markerB64 + `"]}`, upstashrest.ErrMalformedReply},
		{"key record in a 500 page", "rest-valid-key", false, "/", 500, markerPage, nil},
		{"key record in a 401 page", "rest-valid-key", false, "/", 401, markerPage, upstashrest.ErrUnauthorized},
		{"tenant document of the wrong shape", "rest-anonymous-route", false, "/pipeline", 200, `[{"result":["` + markerB64 + `",7]}]`, upstashrest.ErrMalformedReply},
		{"tenant document in a truncated batch", "rest-anonymous-route", false, "/pipeline", 200, `[{"result":["` + markerB64 + `"`, upstashrest.ErrMalformedReply},
		{"counters in a truncated reply", "rest-valid-key", true, "/", 200, `{"result":[1,"` + markerB64 + `"`, upstashrest.ErrMalformedReply},
		{"counters of the wrong kind", "rest-valid-key", true, "/", 200, `{"result":["` + markerB64 + `",1,0,0,0]}`, upstashrest.ErrMalformedReply},
		{"counters in a 502 page", "rest-valid-key", true, "/", 502, markerPage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fakeUpstash(t, func(path, cmd string) (int, string) {
				if path != tt.path {
					return 400, `{"error":"ERR unexpected ` + path + `"}`
				}
				return tt.status, tt.body
			})
			var line bytes.Buffer
			seen := &seenErrors{}
			h := logSafeHandler(t, client, tt.counters, seen, &line)
			resp, err := h.REST(context.Background(), restEvent(t, tt.event))
			if err != nil || resp.Context["failClosed"] != true && resp.Context["failOpen"] != true {
				t.Fatalf("REST = %+v, %v: want a fail-mode answer", resp.Context, err)
			}
			if len(seen.errs) == 0 {
				t.Fatal("the store returned no error")
			}
			for _, err := range seen.errs {
				if leaks(err.Error()) || tt.want != nil && !errors.Is(err, tt.want) {
					t.Errorf("store error %q: want %v and no stored bytes", err, tt.want)
				}
			}
			var fields map[string]any
			if err := json.Unmarshal(line.Bytes(), &fields); err != nil {
				t.Fatalf("decision line %q: %v", line.String(), err)
			}
			if reason, _ := fields["reason"].(string); reason == "" || leaks(line.String()) {
				t.Errorf("decision line holds stored bytes or no reason: %s", line.String())
			}
		})
	}
}

func leaks(s string) bool {
	return strings.Contains(s, marker) || strings.Contains(s, markerB64[8:40])
}

// logSafeHandler is an authorizer whose tenant store (the events' tenants file) or
// counter store is the Upstash store over client, writing its decision lines to line.
func logSafeHandler(t *testing.T, client *upstashrest.Client, counters bool, seen *seenErrors, line io.Writer) *authorizer.Handler {
	t.Helper()
	var tenants gate.Tenants = upstash.NewTenants(client, upstash.TenantsConfig{})
	var cs store.Counters = memory.NewCounters(memory.CountersConfig{})
	if counters {
		file, err := memory.LoadFile(filepath.Join(eventsDir, "tenants.json"), nil)
		if err != nil {
			t.Fatal(err)
		}
		tenants, cs = file, upstash.NewCounters(client, upstash.CountersConfig{})
	}
	g, err := gate.New(gate.Config{Tenants: watchedTenants{tenants, seen}, Counters: watchedCounters{cs, seen},
		AnonymousTenant: "public", LatencyBudget: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h, err := authorizer.New(authorizer.Config{Gate: g, LogWriter: line, Metrics: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return h
}
