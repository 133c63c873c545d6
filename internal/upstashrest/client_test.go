package upstashrest_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/upstashrest"
)

const testToken = "test-token"

// fake is an httptest server answering every request with handle, counting
// requests. Handlers run one at a time under mu, so a test that takes mu after a
// call may read what its handler recorded (the race detector sees no order
// through a socket).
type fake struct {
	srv      *httptest.Server
	requests atomic.Int64
	mu       sync.Mutex
}

func newFake(t *testing.T, handle http.HandlerFunc) *fake {
	t.Helper()
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		f.mu.Lock()
		defer f.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// client returns a upstashrest.Client for the fake.
func (f *fake) client(t *testing.T, cfg upstashrest.Config) *upstashrest.Client {
	t.Helper()
	cfg.URL, cfg.Token = f.srv.URL, testToken
	c, err := upstashrest.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reply answers with a fixed status and body.
func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestDoSendsOneJSONCommandWithHeaders(t *testing.T) {
	var got struct {
		method, path, auth, encoding, ctype string
		body                                []string
	}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path = r.Method, r.URL.Path
		got.auth, got.encoding = r.Header.Get("Authorization"), r.Header.Get("Upstash-Encoding")
		got.ctype = r.Header.Get("Content-Type")
		if err := json.NewDecoder(r.Body).Decode(&got.body); err != nil {
			t.Errorf("body: %v", err)
		}
		io.WriteString(w, `{"result":"OK"}`)
	})
	c := f.client(t, upstashrest.Config{})
	r, err := c.Do(testCtx(t), "SET", "k", "v", "PX", 1500, int64(9007199254740993), 2.5, true, []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := r.String(); err != nil || s != "OK" {
		t.Errorf("reply = %v, %v; want OK", r, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	want := []string{"SET", "k", "v", "PX", "1500", "9007199254740993", "2.5", "1", "b"}
	if strings.Join(got.body, "|") != strings.Join(want, "|") {
		t.Errorf("body = %q, want %q", got.body, want)
	}
	if got.method != "POST" || got.path != "/" || got.auth != "Bearer "+testToken ||
		got.encoding != "base64" || got.ctype != "application/json" {
		t.Errorf("request = %+v", got)
	}
}

func TestDoRejectsBadArgumentsWithoutARequest(t *testing.T) {
	f := newFake(t, reply(200, `{"result":"OK"}`))
	c := f.client(t, upstashrest.Config{})
	for name, args := range map[string][]any{
		"no command":   {},
		"invalid utf8": {"SET", "k", "\xff\xfe"},
		"struct":       {"SET", "k", struct{}{}},
		"nil":          {"SET", "k", nil},
	} {
		if _, err := c.Do(testCtx(t), args...); err == nil {
			t.Errorf("%s: Do succeeded, want an error", name)
		}
	}
	if n := f.requests.Load(); n != 0 {
		t.Errorf("%d requests sent, want 0", n)
	}
}

func TestRepliesDecode(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string // the reply printed with %v
	}{
		{"nil", `{"result":null}`, "nil"},
		{"integer beyond 2^53 is exact", `{"result":9007199254740993}`, "9007199254740993"},
		{"negative int64 min", `{"result":-9223372036854775808}`, "-9223372036854775808"},
		{"OK is not base64", `{"result":"OK"}`, `"OK"`},
		{"binary string", `{"result":"` + b64("a\x00\xff") + `"}`, `"a\x00\xff"`},
		{"empty string", `{"result":""}`, `""`},
		{"nested arrays", `{"result":["` + b64("x") + `",1,null,["` + b64("y") + `",[2,"` + b64("z") + `"]],[]]}`,
			`["x" 1 nil ["y" [2 "z"]] []]`},
		{"not base64 is kept as sent", `{"result":"QUEUED"}`, `"QUEUED"`},
		{"escaped base64 (a slash as \\/)", `{"result":"` + strings.ReplaceAll(b64("\xff\xfe\xff"), "/", `\/`) + `"}`, `"\xff\xfe\xff"`},
		{"escapes in a string that is not base64", `{"result":"a\"b\u00e9\n"}`, `"a\"bé\n"`},
		{"white space, other members, a key escaped", " {\n \"other\": {\"a\": [1, \"}\"]},\t\"res\\u0075lt\" : [ 1 , 2 ] } \n", "[1 2]"},
		{"a member given twice counts once, the last", `{"result":1,"result":2}`, "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFake(t, reply(200, tt.body)).client(t, upstashrest.Config{})
			r, err := c.Do(testCtx(t), "GET", "k")
			if err != nil {
				t.Fatal(err)
			}
			if got := fmtReply(r); got != tt.want {
				t.Errorf("reply = %s, want %s", got, tt.want)
			}
		})
	}
}

func fmtReply(r upstashrest.Reply) string { return upstashrest.FormatReply(r) }

func TestReplyAccessorsReturnErrorsOnMismatch(t *testing.T) {
	c := newFake(t, reply(200, `{"result":["`+b64("12")+`",7,null]}`)).client(t, upstashrest.Config{})
	r, err := c.Do(testCtx(t), "EVAL", "x", 0)
	if err != nil {
		t.Fatal(err)
	}
	elems, err := r.Array()
	if err != nil || len(elems) != 3 {
		t.Fatalf("Array() = %v, %v", elems, err)
	}
	str, num, nilReply := elems[0], elems[1], elems[2]
	if _, err := str.Int64(); !errors.Is(err, upstashrest.ErrMalformedReply) {
		t.Errorf("Int64() of a string: err = %v, want upstashrest.ErrMalformedReply", err)
	}
	var te *upstashrest.TypeError
	if _, err := str.Int64(); !errors.As(err, &te) || te.Want != upstashrest.KindInt || te.Got != upstashrest.KindString {
		t.Errorf("Int64() of a string: err = %#v, want a upstashrest.TypeError", err)
	}
	if _, err := num.String(); err == nil {
		t.Error("String() of an integer succeeded")
	}
	if _, err := nilReply.Int64(); err == nil || !nilReply.IsNil() {
		t.Errorf("nil reply: Int64 err = %v, IsNil = %v", err, nilReply.IsNil())
	}
	if _, err := num.Array(); err == nil {
		t.Error("Array() of an integer succeeded")
	}
	if _, err := r.Int64s(); err == nil || !strings.Contains(err.Error(), "element 0") {
		t.Errorf("Int64s() = %v, want an error naming element 0", err)
	}
	if n, err := num.Int64(); err != nil || n != 7 {
		t.Errorf("Int64() = %d, %v; want 7", n, err)
	}
}

func TestErrorReplies(t *testing.T) {
	htmlPage := "<html><head><title>500 Internal Server Error</title></head>\n<body><h1>Oops</h1></body></html>"
	tests := []struct {
		name    string
		handler http.HandlerFunc
		check   func(t *testing.T, err error)
	}{
		{"garbage", reply(200, "hello, world"), isMalformed},
		{"truncated JSON", reply(200, `{"result":[1,2`), isMalformed},
		{"trailing data", reply(200, `{"result":1}{"result":2}`), isMalformed},
		{"empty body", reply(200, ``), isMalformed},
		{"neither result nor error", reply(200, `{"status":"ok"}`), isMalformed},
		{"not an object", reply(200, `[1,2]`), isMalformed},
		{"float result", reply(200, `{"result":1.5}`), isMalformed},
		{"error not a string", reply(200, `{"error":42}`), isMalformed},
		{"401", reply(401, `{"error":"Unauthorized"}`), func(t *testing.T, err error) {
			if !errors.Is(err, upstashrest.ErrUnauthorized) {
				t.Errorf("err = %v, want upstashrest.ErrUnauthorized", err)
			}
		}},
		{"400 command error", reply(400, `{"error":"WRONGTYPE Operation against a key holding the wrong kind of value"}`),
			func(t *testing.T, err error) {
				var ce *upstashrest.CommandError
				if !errors.As(err, &ce) || ce.Code() != "WRONGTYPE" || ce.Command != "GET" || upstashrest.IsNoScript(err) {
					t.Errorf("err = %#v, want a WRONGTYPE upstashrest.CommandError for GET", err)
				}
			}},
		{"429 with the server's error", reply(429, `{"error":"ERR max requests limit exceeded.\nLimit: 10000"}`), func(t *testing.T, err error) {
			var se *upstashrest.StatusError
			if !errors.As(err, &se) || se.StatusCode != 429 || se.Command != "GET" ||
				err.Error() != "upstash: GET: HTTP 429: ERR max requests limit exceeded. Limit: 10000" {
				t.Errorf("err = %q (%#v), want a upstashrest.StatusError 429 naming GET with the server's line", err, err)
			}
		}},
		{"429 with a bare text", reply(429, "Too Many Requests"), func(t *testing.T, err error) {
			if err.Error() != "upstash: GET: HTTP 429: (a body of 17 bytes that is not an Upstash error)" {
				t.Errorf("err = %q, want the body's length, not its text", err)
			}
		}},
		{"HTML 500 page", reply(500, htmlPage), func(t *testing.T, err error) {
			var se *upstashrest.StatusError
			if !errors.As(err, &se) || se.StatusCode != 500 || strings.Contains(err.Error(), "Oops") ||
				!strings.Contains(se.Snippet, "93 bytes") || errors.Is(err, upstashrest.ErrMalformedReply) {
				t.Errorf("err = %#v, want a upstashrest.StatusError 500 giving the page's length, not its text", err)
			}
		}},
		{"400 that is not JSON", reply(400, "Bad Request"), func(t *testing.T, err error) {
			var se *upstashrest.StatusError
			if !errors.As(err, &se) || se.StatusCode != 400 {
				t.Errorf("err = %#v, want a upstashrest.StatusError 400", err)
			}
		}},
		{"redirect is not followed", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}, func(t *testing.T, err error) {
			var se *upstashrest.StatusError
			if !errors.As(err, &se) || se.StatusCode != 307 {
				t.Errorf("err = %#v, want a upstashrest.StatusError 307", err)
			}
		}},
		{"connection reset", hijackAndClose, func(t *testing.T, err error) {
			if err == nil || errors.Is(err, upstashrest.ErrMalformedReply) {
				t.Errorf("err = %v, want a transport error", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.handler)
			r, err := f.client(t, upstashrest.Config{}).Do(testCtx(t), "GET", "k")
			if err == nil {
				t.Fatalf("Do succeeded with %v, want an error", r)
			}
			tt.check(t, err)
			if n := f.requests.Load(); n != 1 {
				t.Errorf("%d requests, want exactly 1: the client must not retry", n)
			}
		})
	}
}

func isMalformed(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, upstashrest.ErrMalformedReply) {
		t.Errorf("err = %v, want upstashrest.ErrMalformedReply", err)
	}
}

// hijackAndClose reads the request, then drops the connection without a reply.
func hijackAndClose(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

func TestReplyLargerThanTheCapIsMalformed(t *testing.T) {
	big := `{"result":"` + strings.Repeat("QUFB", 300) + `"}`
	f := newFake(t, reply(200, big))
	_, err := f.client(t, upstashrest.Config{MaxReplyBytes: 1000}).Do(testCtx(t), "GET", "k")
	if !errors.Is(err, upstashrest.ErrMalformedReply) || !strings.Contains(err.Error(), "larger than 1000") {
		t.Errorf("err = %v, want upstashrest.ErrMalformedReply for the size", err)
	}
}

// A reply of exactly MaxReplyBytes is read; one byte more is malformed.
func TestReplyCapIsInclusive(t *testing.T) {
	body := `{"result":"` + strings.Repeat("QUFB", 100) + `"}` // 413 bytes
	for _, tc := range []struct {
		max     int64
		wantErr bool
	}{{int64(len(body)), false}, {int64(len(body)) - 1, true}} {
		f := newFake(t, reply(200, body))
		r, err := f.client(t, upstashrest.Config{MaxReplyBytes: tc.max}).Do(testCtx(t), "GET", "k")
		if s, _ := r.String(); tc.wantErr != errors.Is(err, upstashrest.ErrMalformedReply) || !tc.wantErr && len(s) != 300 {
			t.Errorf("cap %d, reply of %d bytes: %d bytes read, err = %v", tc.max, len(body), len(s), err)
		}
	}
}

func TestHangingServerReturnsPromptlyAtTheDeadline(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release) // before f.srv.Close, which waits for the handler
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := f.client(t, upstashrest.Config{}).Do(ctx, "GET", "k")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Do returned after %v, want about 50ms", elapsed)
	}
}

// The sync token of an answer is sent back with the next request, unless NoSyncToken
// is set or the token is not printable ASCII (which no header may carry).
func TestSyncTokenIsSentBack(t *testing.T) {
	numbered := func(n int) string { return "tok-" + string(rune('a'+n)) }
	for _, tc := range []struct {
		name  string
		cfg   upstashrest.Config
		token func(n int) string // the token of the nth answer, from 1
		want  string             // the tokens the three requests sent
	}{
		{"sent back", upstashrest.Config{}, numbered, ",tok-b,tok-c"},
		{"NoSyncToken", upstashrest.Config{NoSyncToken: true}, numbered, ",,"},
		{"not printable", upstashrest.Config{}, func(int) string { return "tok-\u00e9" }, ",,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen []string
			f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				seen = append(seen, r.Header.Get("Upstash-Sync-Token"))
				w.Header().Set("upstash-sync-token", tc.token(len(seen)))
				io.WriteString(w, `{"result":1}`)
			})
			c := f.client(t, tc.cfg)
			for range 3 {
				if _, err := c.Do(testCtx(t), "INCR", "k"); err != nil {
					t.Fatal(err)
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if got := strings.Join(seen, ","); got != tc.want {
				t.Errorf("sync tokens sent = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPipelineAndMultiExec(t *testing.T) {
	for _, path := range []string{"/pipeline", "/multi-exec"} {
		t.Run(path, func(t *testing.T) {
			var gotPath string
			var gotBody [][]string
			f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				gotPath = r.URL.Path
				json.NewDecoder(r.Body).Decode(&gotBody)
				io.WriteString(w, `[{"result":"OK"},{"error":"WRONGTYPE wrong kind"},{"result":["`+b64("v")+`",3]}]`)
			})
			c := f.client(t, upstashrest.Config{})
			run := c.Pipeline
			if path == "/multi-exec" {
				run = c.MultiExec
			}
			res, err := run(testCtx(t), [][]any{{"SET", "k", "v"}, {"HGET", "k", "f"}, {"EVAL", "s", 0}})
			if err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if gotPath != path || len(gotBody) != 3 || strings.Join(gotBody[2], " ") != "EVAL s 0" {
				t.Errorf("request = %s %q", gotPath, gotBody)
			}
			var ce *upstashrest.CommandError
			if len(res) != 3 || res[0].Err != nil || !errors.As(res[1].Err, &ce) || ce.Command != "HGET" || res[2].Err != nil {
				t.Fatalf("results = %+v", res)
			}
			if got := fmtReply(res[2].Reply); got != `["v" 3]` {
				t.Errorf("third reply = %s", got)
			}
		})
	}
}

func TestBatchFailures(t *testing.T) {
	cmds := [][]any{{"INCR", "a"}, {"INCR", "b"}}
	tests := []struct {
		name, body string
		status     int
		want       func(error) bool
	}{
		{"wrong count", `[{"result":1}]`, 200, isMalformedErr},
		{"malformed item", `[{"result":1},{"nothing":2}]`, 200, isMalformedErr},
		{"single result", `{"result":1}`, 200, isMalformedErr},
		{"transaction refused", `{"error":"EXECABORT Transaction discarded"}`, 400, func(err error) bool {
			var ce *upstashrest.CommandError
			return errors.As(err, &ce) && ce.Code() == "EXECABORT"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFake(t, reply(tt.status, tt.body)).client(t, upstashrest.Config{})
			if _, err := c.MultiExec(testCtx(t), cmds); !tt.want(err) {
				t.Errorf("err = %v", err)
			}
		})
	}
	c := newFake(t, reply(200, `[]`)).client(t, upstashrest.Config{})
	if _, err := c.Pipeline(testCtx(t), nil); err == nil {
		t.Error("an empty pipeline succeeded")
	}
	if _, err := c.Pipeline(testCtx(t), [][]any{{"GET", "k"}, {}}); err == nil {
		t.Error("a pipeline with an empty command succeeded")
	}
}

func isMalformedErr(err error) bool { return errors.Is(err, upstashrest.ErrMalformedReply) }

// scriptServer is a fake holding a script cache, as Redis does: EVALSHA of an
// unknown SHA1 answers NOSCRIPT, EVAL caches its text under its SHA1.
type scriptServer struct {
	mu    sync.Mutex
	cache map[string]string
	sent  [][]string
}

func (s *scriptServer) handle(w http.ResponseWriter, r *http.Request) {
	var cmd []string
	json.NewDecoder(r.Body).Decode(&cmd)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, cmd)
	switch cmd[0] {
	case "EVAL":
		sum := sha1.Sum([]byte(cmd[1]))
		s.cache[hex.EncodeToString(sum[:])] = cmd[1]
	case "EVALSHA":
		if _, ok := s.cache[cmd[1]]; !ok {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"NOSCRIPT No matching script. Please use EVAL."}`)
			return
		}
	}
	io.WriteString(w, `{"result":[1,2]}`)
}

func TestEvalFallsBackToEvalOnNoScript(t *testing.T) {
	for _, keyLocking := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "key locking"}[keyLocking]
		t.Run(name, func(t *testing.T) {
			ss := &scriptServer{cache: map[string]string{}}
			f := newFake(t, ss.handle)
			c := f.client(t, upstashrest.Config{KeyLocking: keyLocking})
			script := upstashrest.NewScript("return {1, 2}")

			var total int64                              // the requests the client says it sent
			for i, wantTrips := range []int64{2, 1, 1} { // cold, then warm
				r, err := c.Eval(testCtx(t), script, []string{"k1", "k2"}, "a", 3)
				if err != nil {
					t.Fatal(err)
				}
				if got, err := r.Int64s(); err != nil || len(got) != 2 || got[1] != 2 {
					t.Errorf("call %d: reply %v, %v", i, r, err)
				}
				total += wantTrips
				if n := f.requests.Swap(0); n != wantTrips || c.Requests() != total {
					t.Errorf("call %d: %d round trips (the client counted %d in all), want %d", i, n, c.Requests(), wantTrips)
				}
			}
			ss.mu.Lock()
			defer ss.mu.Unlock()
			evalsha, eval := ss.sent[0], ss.sent[1]
			wantText := "return {1, 2}"
			if keyLocking {
				wantText = "#!lua flags=allow-key-locking\n" + wantText
			}
			sum := sha1.Sum([]byte(wantText))
			wantSHA := hex.EncodeToString(sum[:])
			if got := strings.Join(evalsha, "|"); got != "EVALSHA|"+wantSHA+"|2|k1|k2|a|3" {
				t.Errorf("EVALSHA sent %q", evalsha)
			}
			if eval[0] != "EVAL" || eval[1] != wantText || strings.Join(eval[2:], "|") != "2|k1|k2|a|3" {
				t.Errorf("EVAL sent %q", eval)
			}
			if script.SHA1(keyLocking) != wantSHA || script.Text(keyLocking) != wantText {
				t.Errorf("SHA1/Text = %s %q", script.SHA1(keyLocking), script.Text(keyLocking))
			}
		})
	}
}

func TestEvalReturnsOtherErrorsWithoutFallback(t *testing.T) {
	f := newFake(t, reply(400, `{"error":"ERR user_script:1: boom"}`))
	c := f.client(t, upstashrest.Config{})
	_, err := c.Eval(testCtx(t), upstashrest.NewScript("error('boom')"), nil)
	var ce *upstashrest.CommandError
	if !errors.As(err, &ce) || ce.Code() != "ERR" {
		t.Errorf("err = %v, want the script's upstashrest.CommandError", err)
	}
	if n := f.requests.Load(); n != 1 || c.Requests() != 1 {
		t.Errorf("%d round trips (the client counted %d), want 1", n, c.Requests())
	}
}

// NewClient refuses a URL that is not the REST URL and a token that cannot be sent.
func TestNewClientChecksTheURLAndToken(t *testing.T) {
	tests := []struct {
		name, url, token, wantErr string
	}{
		{"ok", "https://eu1-x.upstash.io", "AXXX", ""},
		{"no token", "https://eu1-x.upstash.io", "", "token: empty"},
		{"redis url", "rediss://default:pw@eu1-x.upstash.io:6379", "AXXX", "must start with https://"},
		{"no scheme", "eu1-x.upstash.io", "AXXX", "must start with https://"},
		{"token with a space", "https://eu1-x.upstash.io", "AX XX", "whitespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := upstashrest.NewClient(upstashrest.Config{URL: tt.url, Token: tt.token})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewClientTrimsTheURLAndJoinsPaths(t *testing.T) {
	var paths []string
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path)
		if r.URL.Path == "/base" || r.URL.Path == "/base/" {
			io.WriteString(w, `{"result":1}`)
			return
		}
		io.WriteString(w, `[{"result":1}]`)
	})
	c, err := upstashrest.NewClient(upstashrest.Config{URL: f.srv.URL + "/base/", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	c.Do(testCtx(t), "PING")
	c.Pipeline(testCtx(t), [][]any{{"PING"}})
	c.MultiExec(testCtx(t), [][]any{{"PING"}})
	f.mu.Lock()
	defer f.mu.Unlock()
	if got := strings.Join(paths, " "); got != "/base /base/pipeline /base/multi-exec" {
		t.Errorf("paths = %s", got)
	}
}
