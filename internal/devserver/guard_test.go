package devserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/admin"
	"github.com/edgelimit/edgelimit/internal/console"
	"github.com/edgelimit/edgelimit/internal/devserver"
)

// guarded serves the dev server of newServer with the console, behind Guard, as
// `edgelimit dev --listen 127.0.0.1:0` does; it returns the base URL, the listener's
// host:port and a key of tenant "one".
func guarded(t *testing.T) (base, hostPort, key string) {
	t.Helper()
	srv, key := newServer(t, `{"id": "one", "rules": [{"name": "m", "algorithm": "fixed_window", "limit": 100, "period": "1m"}]}`, nil)
	ts := httptest.NewServer(devserver.Guard("127.0.0.1:0", console.Mount(srv, console.NewTraffic(nil))))
	t.Cleanup(ts.Close)
	return ts.URL, ts.Listener.Addr().String(), key
}

// request is one request of the tests below: host "" is the listener's host:port, and
// PORT in host or a header value is the listener's port.
type request struct {
	method, path, host string
	header             map[string]string
	body               string
}

// send sends rq to base and returns its status and body.
func send(t *testing.T, base, hostPort string, rq request) (int, string) {
	t.Helper()
	req, err := http.NewRequest(rq.method, base+rq.path, strings.NewReader(rq.body))
	if err != nil {
		t.Fatal(err)
	}
	port := strings.NewReplacer("PORT", hostPort[strings.LastIndex(hostPort, ":")+1:])
	req.Host = port.Replace(rq.host)
	if rq.host == "" {
		req.Host = hostPort
	}
	for name, v := range rq.header {
		req.Header.Set(name, port.Replace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// The bug: the admin API of `edgelimit dev` checked neither Host nor Origin,
// so a web page could point its host name at 127.0.0.1 (DNS rebinding), or post to
// 127.0.0.1 directly, and create tenants and keys. Each refused request is a 403
// "forbidden" problem naming the header and changes nothing: the tenant it would
// create does not exist afterwards; each accepted one created its tenant.
func TestGuard(t *testing.T) {
	base, hostPort, _ := guarded(t)
	tenant := func(id string) request {
		return request{method: "PUT", path: "/admin/tenants/" + id, body: `{"id": "` + id + `", "rules": [{"name": "m", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`,
			header: map[string]string{"Content-Type": "application/json"}}
	}
	with := func(rq request, host string, header ...string) request {
		rq.host = host
		for i := 0; i+1 < len(header); i += 2 {
			rq.header[header[i]] = header[i+1]
		}
		return rq
	}
	tests := []struct {
		name, id  string
		rq        request
		wantField string // "": accepted
	}{
		{"rebound host", "rebound", with(tenant("rebound"), "evil.example"), "Host"},
		{"rebound host with the port", "rebound-port", with(tenant("rebound-port"), "evil.example:PORT"), "Host"},
		{"rebound host, own-looking origin", "rebound-origin", with(tenant("rebound-origin"), "evil.example:PORT", "Origin", "http://evil.example:PORT"), "Host"},
		{"foreign origin", "foreign", with(tenant("foreign"), "", "Origin", "http://evil.example"), "Origin"},
		{"opaque origin", "opaque", with(tenant("opaque"), "", "Origin", "null"), "Origin"},
		{"cross-site fetch", "cross-site", with(tenant("cross-site"), "", "Sec-Fetch-Site", "cross-site"), "Origin"},
		{"127.0.0.1 without origin", "ipv4", with(tenant("ipv4"), "127.0.0.1:PORT"), ""},
		{"localhost without origin", "localhost", with(tenant("localhost"), "localhost:PORT"), ""},
		{"localhost without port", "no-port", with(tenant("no-port"), "LocalHost"), ""},
		{"[::1]", "ipv6", with(tenant("ipv6"), "[::1]:PORT"), ""},
		{"the page's own origin", "own", with(tenant("own"), "", "Origin", "http://127.0.0.1:PORT"), ""},
		{"localhost's own origin", "own-localhost", with(tenant("own-localhost"), "localhost:PORT", "Origin", "http://localhost:PORT"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := send(t, base, hostPort, tt.rq)
			checkAnswer(t, status, body, http.StatusCreated, tt.wantField)
			after, _ := send(t, base, hostPort, request{method: "GET", path: "/admin/tenants/" + tt.id})
			if want := map[bool]int{true: 404, false: 200}[tt.wantField != ""]; after != want {
				t.Errorf("GET the tenant afterwards: %d, want %d", after, want)
			}
		})
	}
}

// The console's endpoints are admin paths too, and the gateway's other paths keep
// API Gateway's behaviour whatever the Host: a key of the tenant is decided as before.
func TestGuardPaths(t *testing.T) {
	base, hostPort, key := guarded(t)
	simulate := `{"rules": [{"name": "m", "algorithm": "fixed_window", "limit": 1, "period": "1m"}], "trace": "0\n0"}`
	evilOrigin := map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}
	for _, tt := range []struct {
		name       string
		rq         request
		wantStatus int    // when wantField is ""
		wantField  string // not "": the 403 problem naming this header
	}{
		{"traffic, rebound host", request{method: "GET", path: console.TrafficPath, host: "evil.example:PORT"}, 0, "Host"},
		{"simulate, foreign origin", request{method: "POST", path: console.SimulatePath, header: evilOrigin, body: simulate}, 0, "Origin"},
		{"simulate, no origin", request{method: "POST", path: console.SimulatePath, body: simulate}, 200, ""},
		{"issue a key, foreign origin", request{method: "POST", path: "/admin/tenants/one/keys", header: evilOrigin}, 0, "Origin"},
		{"a read, foreign origin: unreadable to the page", request{method: "GET", path: "/admin/tenants", header: evilOrigin}, 200, ""},
		{"gateway, rebound host", request{method: "GET", path: "/hello", host: "evil.example", header: map[string]string{"x-api-key": key}}, 200, ""},
		{"gateway, rebound host, no key", request{method: "GET", path: "/hello", host: "evil.example"}, 401, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := send(t, base, hostPort, tt.rq)
			checkAnswer(t, status, body, tt.wantStatus, tt.wantField)
		})
	}
	_, keys := send(t, base, hostPort, request{method: "GET", path: "/admin/tenants/one/keys"})
	if n := strings.Count(keys, `"key_id"`); n != 1 {
		t.Errorf("tenant one has %d keys after a refused issue, want the 1 it had: %s", n, keys)
	}
}

// Guard accepts the exact --listen host, and a loopback address it was not told of
// only as localhost, 127.0.0.1 or [::1].
func TestGuardListenHost(t *testing.T) {
	srv, _ := newServer(t, `{"id": "one", "rules": [{"name": "m", "algorithm": "fixed_window", "limit": 1, "period": "1m"}]}`, nil)
	for _, tt := range []struct {
		listen, host string
		want         int
	}{
		{"127.0.0.2:3000", "127.0.0.2:3000", 200},
		{"127.0.0.2:3000", "127.0.0.2", 200},
		{"127.0.0.1:3000", "127.0.0.2:3000", 403},
		{"[::1]:3000", "[::1]", 200},
		{"localhost:3000", "localhost.:3000", 403},
		{"localhost:3000", "127.0.0.1.evil.example:3000", 403},
	} {
		req := httptest.NewRequest("GET", "/admin/tenants", nil)
		req.Host = tt.host
		rec := httptest.NewRecorder()
		devserver.Guard(tt.listen, srv).ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("--listen %s, Host %s: %d %s, want %d", tt.listen, tt.host, rec.Code, rec.Body, tt.want)
		}
	}
}

// checkAnswer fails unless status and body are the 403 "forbidden" problem naming
// field, or, with field "", unless status is want.
func checkAnswer(t *testing.T, status int, body string, want int, field string) {
	t.Helper()
	if field == "" {
		if status != want {
			t.Fatalf("%d %s, want %d", status, body, want)
		}
		return
	}
	var p admin.Problem
	if err := json.Unmarshal([]byte(body), &p); err != nil || status != 403 || p.Status != 403 ||
		p.Type != admin.ProblemTypeBase+"forbidden" || p.Field != field || p.Detail == "" {
		t.Fatalf("%d %s (%v): want a 403 forbidden problem naming %s", status, body, err, field)
	}
}
