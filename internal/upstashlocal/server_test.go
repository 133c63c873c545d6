package upstashlocal

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/redis/go-redis/v9"
)

const testToken = "local-test-token"

// testServer is the handler under test in front of the test redis-server.
type testServer struct {
	*httptest.Server
	prefix string // unique per test: the Redis server is shared with other tests
}

// newTestServer serves a Server for cfg, wrapped in wrap when given, with the
// test token, in front of the test redis-server.
func newTestServer(t *testing.T, cfg Config, wrap ...func(http.Handler) http.Handler) *testServer {
	t.Helper()
	cfg.RedisAddr, cfg.Token = testenv.RedisAddr(t), testToken
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("redis at %s: %v", cfg.RedisAddr, err)
	}
	var h http.Handler = s
	for _, w := range wrap {
		h = w(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &testServer{Server: srv, prefix: "ultest:" + nonce() + ":"}
}

// nonce returns a random hex string, to make keys and scripts unique.
func nonce() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// response is one answer as the wire shows it.
type response struct {
	status int
	header http.Header
	body   string
}

// send makes a request with the right token and the given headers ("Name: value").
func (ts *testServer) send(t *testing.T, method, path, body string, headers ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, strings.TrimSpace(string(data))}
}

// post sends a JSON command (or commands) to path and checks the status.
func (ts *testServer) post(t *testing.T, path string, cmd any, wantStatus int, headers ...string) string {
	t.Helper()
	body, err := json.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	r := ts.send(t, "POST", path, string(body), headers...)
	if r.status != wantStatus {
		t.Fatalf("POST %s %s: status %d (%s), want %d", path, body, r.status, r.body, wantStatus)
	}
	return r.body
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

const base64Header = "Upstash-Encoding: base64"

func TestSingleCommands(t *testing.T) {
	ts := newTestServer(t, Config{})
	k := ts.prefix + "k"
	binary := `return string.char(0, 255, 10) .. "é"`
	tests := []struct {
		name    string
		cmd     []any
		base64  bool
		want    string
		wantErr bool
	}{
		{"set", []any{"SET", k, "hello"}, false, `{"result":"OK"}`, false},
		{"OK stays plain under base64", []any{"SET", k, "hello"}, true, `{"result":"OK"}`, false},
		{"get", []any{"GET", k}, false, `{"result":"hello"}`, false},
		{"get base64", []any{"GET", k}, true, `{"result":"` + b64("hello") + `"}`, false},
		{"nil", []any{"GET", k + ":missing"}, true, `{"result":null}`, false},
		{"integer", []any{"STRLEN", k}, true, `{"result":5}`, false},
		{"binary string", []any{"EVAL", binary, 0}, true, `{"result":"` + b64("\x00\xff\né") + `"}`, false},
		{"lua array, nested, false as nil", []any{"EVAL", `return {1, "a", {2, "b"}, false}`, 0}, true,
			`{"result":[1,"` + b64("a") + `",[2,"` + b64("b") + `"],null]}`, false},
		{"lua array plain", []any{"EVAL", `return {KEYS[1], ARGV[1], 3}`, 1, "key", "arg"}, false,
			`{"result":["key","arg",3]}`, false},
		{"wrong type", []any{"HGET", k, "f"}, false,
			`{"error":"WRONGTYPE Operation against a key holding the wrong kind of value"}`, true},
		{"unknown command", []any{"NOSUCHCOMMAND"}, false, `"error":"ERR unknown command`, true},
		{"lua error", []any{"EVAL", `return redis.error_reply("MYERR custom")`, 0}, false, `{"error":"MYERR custom"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.base64 {
				headers = append(headers, base64Header)
			}
			status := http.StatusOK
			if tt.wantErr {
				status = http.StatusBadRequest
			}
			got := ts.post(t, "/", tt.cmd, status, headers...)
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestArgumentsAreStringsNumbersOrBooleans(t *testing.T) {
	ts := newTestServer(t, Config{})
	k := ts.prefix + "n"
	ts.post(t, "/", []any{"SET", k, 0}, 200)
	// 2^53+1 has no float64: the server must pass the number's text, not a float.
	if got := ts.post(t, "/", json.RawMessage(`["INCRBY","`+k+`",9007199254740993]`), 200); got != `{"result":9007199254740993}` {
		t.Errorf("INCRBY 2^53+1: %s", got)
	}
	ts.post(t, "/", []any{"SET", k, true}, 200)
	if got := ts.post(t, "/", []any{"GET", k}, 200); got != `{"result":"true"}` {
		t.Errorf("GET after SET true: %s", got)
	}
	for _, bad := range []string{`[]`, `{}`, `"GET"`, `["GET",null]`, `["GET",{"a":1}]`, `["GET",["x"]]`, `["GET"`, `["PING"] x`} {
		if r := ts.send(t, "POST", "/", bad); r.status != 400 || !strings.HasPrefix(r.body, `{"error":"ERR `) {
			t.Errorf("POST %s: %d %s, want 400 with an ERR error", bad, r.status, r.body)
		}
	}
}

func TestConnectionStateCommandsAreRefused(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, cmd := range [][]any{{"MULTI"}, {"select", 1}, {"SUBSCRIBE", "c"}, {"CLIENT", "REPLY", "OFF"}} {
		got := ts.post(t, "/", cmd, 400)
		if !strings.Contains(got, "not available over REST") {
			t.Errorf("%v: %s", cmd, got)
		}
	}
	if r := ts.send(t, "GET", "/multi", ""); r.status != 400 {
		t.Errorf("GET /multi: %d %s", r.status, r.body)
	}
}

func TestAuthorization(t *testing.T) {
	ts := newTestServer(t, Config{})
	tests := []struct {
		name, path, auth string
		want             int
	}{
		{"no token", "/", "", 401},
		{"wrong token", "/", "Bearer nope", 401},
		{"token prefix", "/", "Bearer " + testToken[:5], 401},
		{"basic scheme", "/", "Basic " + testToken, 401},
		{"right token", "/", "Bearer " + testToken, 200},
		{"lower-case scheme", "/", "bearer " + testToken, 200},
		{"query token", "/?_token=" + testToken, "", 200},
		{"wrong header wins over a right query token", "/?_token=" + testToken, "Bearer nope", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", ts.URL+tt.path, strings.NewReader(`["PING"]`))
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tt.want)
			}
			if tt.want == 401 && strings.TrimSpace(string(body)) != `{"error":"Unauthorized"}` {
				t.Errorf("401 body = %s", body)
			}
		})
	}
}

func TestBodyCap(t *testing.T) {
	ts := newTestServer(t, Config{MaxBodyBytes: 100})
	big := `["SET","` + ts.prefix + `big","` + strings.Repeat("x", 200) + `"]`
	for _, path := range []string{"/", "/pipeline", "/set/" + ts.prefix + "big"} {
		if r := ts.send(t, "POST", path, big); r.status != http.StatusRequestEntityTooLarge ||
			!strings.Contains(r.body, "max request size") {
			t.Errorf("POST %s of %d bytes: %d %s, want 413", path, len(big), r.status, r.body)
		}
	}
	ts.post(t, "/", []any{"PING"}, 200) // a small request still passes
}

func TestMethods(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, path := range []string{"/", "/pipeline", "/multi-exec"} {
		if r := ts.send(t, "GET", path, ""); r.status != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: %d %s, want 405", path, r.status, r.body)
		}
	}
	if r := ts.send(t, "PUT", "/get/x", ""); r.status != http.StatusMethodNotAllowed {
		t.Errorf("PUT /get/x: %d, want 405", r.status)
	}
}

func TestPipeline(t *testing.T) {
	ts := newTestServer(t, Config{})
	k := ts.prefix + "p"
	got := ts.post(t, "/pipeline", [][]any{
		{"SET", k, "v"}, {"HGET", k, "f"}, {"INCR", k + ":n"}, {"GET", k + ":missing"}, {"GET", k},
	}, 200, base64Header)
	want := `[{"result":"OK"},{"error":"WRONGTYPE Operation against a key holding the wrong kind of value"},` +
		`{"result":1},{"result":null},{"result":"` + b64("v") + `"}]`
	if got != want {
		t.Errorf("pipeline:\n got %s\nwant %s", got, want)
	}
	for _, bad := range []string{`[]`, `["GET","k"]`, `[["GET","k"],[]]`, `[["MULTI"]]`} {
		if r := ts.send(t, "POST", "/pipeline", bad); r.status != 400 {
			t.Errorf("pipeline %s: %d %s, want 400", bad, r.status, r.body)
		}
	}
}

func TestMultiExec(t *testing.T) {
	ts := newTestServer(t, Config{})
	k := ts.prefix + "m"
	got := ts.post(t, "/multi-exec", [][]any{
		{"SET", k, "v"}, {"HGET", k, "f"}, {"INCR", k + ":n"}, {"INCR", k + ":n"}, {"GET", k + ":missing"},
	}, 200, base64Header)
	want := `[{"result":"OK"},{"error":"WRONGTYPE Operation against a key holding the wrong kind of value"},` +
		`{"result":1},{"result":2},{"result":null}]`
	if got != want {
		t.Errorf("multi-exec:\n got %s\nwant %s", got, want)
	}

	// A command Redis refuses while queueing discards the whole transaction.
	got = ts.post(t, "/multi-exec", [][]any{{"INCR", k + ":n"}, {"GET"}, {"INCR", k + ":n"}}, 400)
	if !strings.HasPrefix(got, `{"error":"EXECABORT`) || !strings.Contains(got, "wrong number of arguments") {
		t.Errorf("aborted transaction: %s", got)
	}
	if got := ts.post(t, "/", []any{"GET", k + ":n"}, 200); got != `{"result":"2"}` {
		t.Errorf("after the aborted transaction, counter = %s, want 2 (nothing applied)", got)
	}
}

func TestPathForm(t *testing.T) {
	ts := newTestServer(t, Config{})
	k := ts.prefix + "path/with slash"
	esc := strings.NewReplacer("/", "%2F", " ", "%20").Replace(k)
	if r := ts.send(t, "GET", "/set/"+esc+"/v1?EX=100&NX", ""); r.status != 200 || r.body != `{"result":"OK"}` {
		t.Fatalf("GET /set: %d %s", r.status, r.body)
	}
	if r := ts.send(t, "GET", "/ttl/"+esc, ""); r.body != `{"result":100}` {
		t.Errorf("ttl: %s", r.body)
	}
	if r := ts.send(t, "POST", "/set/"+esc+"?XX", "\x00\xff raw body"); r.body != `{"result":"OK"}` {
		t.Errorf("POST /set: %d %s", r.status, r.body)
	}
	if r := ts.send(t, "GET", "/get/"+esc, "", base64Header); r.body != `{"result":"`+b64("\x00\xff raw body")+`"}` {
		t.Errorf("GET /get after a binary POST body: %s", r.body)
	}
}

func TestSyncTokenHeaderAdvances(t *testing.T) {
	ts := newTestServer(t, Config{})
	var last int
	for i := range 3 {
		r := ts.send(t, "POST", "/", `["PING"]`)
		n, err := strconv.Atoi(r.header.Get("upstash-sync-token"))
		if err != nil || n <= last {
			t.Fatalf("request %d: upstash-sync-token %q after %d", i, r.header.Get("upstash-sync-token"), last)
		}
		last = n
	}
}

// redisDirect is a plain go-redis client to the test redis-server, to see what
// Redis itself says.
func redisDirect(t *testing.T) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: testenv.RedisAddr(t), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestKeyLockingShebang(t *testing.T) {
	ts := newTestServer(t, Config{})
	ctx := context.Background()
	body := "-- " + nonce() + "\nreturn {KEYS[1], tonumber(ARGV[1]) + 1}"
	locked := keyLockingLine + "\n" + body
	clientSHA, redisSHA := sha1Hex(locked), sha1Hex(keysCheck+"\n"+body)
	unknownSHA := sha1Hex("unknown " + nonce())

	// Plain Redis refuses the flag: the reason the server strips it.
	err := redisDirect(t).Eval(ctx, locked, []string{"k"}, 1).Err()
	if err == nil || !strings.Contains(err.Error(), "allow-key-locking") {
		t.Fatalf("redis EVAL with the shebang: %v, want an error naming the flag", err)
	}
	redisNoScript := redisDirect(t).EvalSha(ctx, unknownSHA, nil).Err()

	// Cold cache: Redis's own NOSCRIPT answer, byte for byte.
	got := ts.post(t, "/", []any{"EVALSHA", clientSHA, 1, "k", 41}, 400)
	want, _ := json.Marshal(errorBody{redisNoScript.Error()})
	if got != string(want) || !strings.HasPrefix(got, `{"error":"NOSCRIPT`) {
		t.Errorf("EVALSHA cold: %s, want %s", got, want)
	}
	// EVAL runs the stripped text, and then EVALSHA with the client's SHA finds it.
	if got := ts.post(t, "/", []any{"EVAL", locked, 1, "k", 41}, 200); got != `{"result":["k",42]}` {
		t.Errorf("EVAL: %s", got)
	}
	if got := ts.post(t, "/", []any{"evalsha", strings.ToUpper(clientSHA), 1, "k", 1}, 200); got != `{"result":["k",2]}` {
		t.Errorf("EVALSHA warm: %s", got)
	}
	if got := ts.post(t, "/", []any{"SCRIPT", "EXISTS", clientSHA, redisSHA, unknownSHA}, 200); got != `{"result":[1,1,0]}` {
		t.Errorf("SCRIPT EXISTS: %s", got)
	}
	if ok, err := redisDirect(t).ScriptExists(ctx, redisSHA).Result(); err != nil || !ok[0] {
		t.Errorf("Redis does not hold the stripped script under %s: %v %v", redisSHA, ok, err)
	}
}

// A script sent with allow-key-locking that touches a key it did not declare is
// refused, as Upstash refuses it, and writes nothing; declared keys run, and without
// the flag (Upstash's global lock) any key runs.
func TestUndeclaredKeysAreRefused(t *testing.T) {
	ts := newTestServer(t, Config{})
	k, other := "declared-"+nonce(), "undeclared-"+nonce()
	for _, tc := range []struct {
		name, script string
		keys         []any
		status       int
		want         string
	}{
		{"a read of an undeclared key", "return redis.call('GET', '" + other + "')", []any{k}, 400, "did not declare"},
		{"a write of an undeclared key", "redis.call('SET', KEYS[1], 'x') return redis.call('SET', '" + other + "', 'x')", []any{k}, 400, "did not declare"},
		{"DEL of declared and undeclared keys", "return redis.call('DEL', KEYS[1], '" + other + "')", []any{k}, 400, "did not declare"},
		{"pcall too", "return redis.pcall('HGET', '" + other + "', 'f')", []any{k}, 400, "did not declare"},
		{"declared keys", "redis.call('DEL', KEYS[1], KEYS[2]) return redis.call('TIME')[1] and 1", []any{k, other}, 200, `{"result":1}`},
	} {
		cmd := append([]any{"EVAL", keyLockingLine + "\n-- " + nonce() + "\n" + tc.script, len(tc.keys)}, tc.keys...)
		if got := ts.post(t, "/", cmd, tc.status); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if n, err := redisDirect(t).Exists(context.Background(), k, other).Result(); err != nil || n != 0 {
		t.Errorf("after the refusals and the DEL, %d of the keys exist (%v), want none", n, err)
	}
	if got := ts.post(t, "/", []any{"EVAL", "return redis.call('EXISTS', '" + other + "')", 0}, 200); got != `{"result":0}` {
		t.Errorf("without allow-key-locking: %s, want the script run", got)
	}
}

func TestScriptLoadAnswersTheClientSHA(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, shebang := range []string{"", keyLockingLine + "\n"} {
		n := nonce()
		text := shebang + "return '" + n + "'"
		// One transaction, so that no other test's SCRIPT FLUSH can fall in between.
		got := ts.post(t, "/multi-exec", [][]any{{"SCRIPT", "LOAD", text}, {"EVALSHA", sha1Hex(text), 0}}, 200)
		if want := `[{"result":"` + sha1Hex(text) + `"},{"result":"` + n + `"}]`; got != want {
			t.Errorf("SCRIPT LOAD then EVALSHA of %q:\n got %s\nwant %s", text, got, want)
		}
	}
}

func TestLuaErrorsKeepSourceLineNumbers(t *testing.T) {
	ts := newTestServer(t, Config{})
	script := keyLockingLine + "\nlocal x = 1\nreturn nosuchvar .. '" + nonce() + "'"
	got := ts.post(t, "/", []any{"EVAL", script, 0}, 400)
	if !strings.Contains(got, "user_script:3:") {
		t.Errorf("error %s, want it to name line 3, the line in the source sent", got)
	}
}

func TestStripShebang(t *testing.T) {
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"shebang", "#!lua flags=allow-key-locking\nreturn 1", "\nreturn 1", true},
		{"crlf", "#!lua flags=allow-key-locking\r\nreturn 1", "\nreturn 1", true},
		{"shebang only", "#!lua flags=allow-key-locking", "", true},
		{"no shebang", "return 1", "return 1", false},
		{"other flags", "#!lua flags=no-writes\nreturn 1", "#!lua flags=no-writes\nreturn 1", false},
		{"longer flag list", "#!lua flags=allow-key-locking,no-writes\nreturn 1", "#!lua flags=allow-key-locking,no-writes\nreturn 1", false},
		{"not first line", "\n#!lua flags=allow-key-locking\nreturn 1", "\n#!lua flags=allow-key-locking\nreturn 1", false},
	}
	for _, tt := range tests {
		got, changed := stripShebang(tt.in)
		if got != tt.want || changed != tt.changed {
			t.Errorf("%s: stripShebang = %q, %v; want %q, %v", tt.name, got, changed, tt.want, tt.changed)
		}
	}
}

func TestCheckListenAddr(t *testing.T) {
	tests := []struct {
		addr        string
		allowRemote bool
		ok          bool
	}{
		{"127.0.0.1:8079", false, true},
		{"127.0.0.2:8079", false, true},
		{"[::1]:8079", false, true},
		{"localhost:8079", false, true},
		{":8079", false, false},
		{"0.0.0.0:8079", false, false},
		{"10.0.0.1:8079", false, false},
		{"example.com:8079", false, false},
		{"0.0.0.0:8079", true, true},
		{"8079", false, false},
	}
	for _, tt := range tests {
		if err := CheckListenAddr(tt.addr, tt.allowRemote); (err == nil) != tt.ok {
			t.Errorf("CheckListenAddr(%q, %v) = %v, want ok=%v", tt.addr, tt.allowRemote, err, tt.ok)
		}
	}
}

func TestServeStopsWhenTheContextEnds(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok")
		}))
	}()
	resp, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the context ended")
	}
}
