package upstashlocal

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// exchange is one request the official client made and what it got back.
type exchange struct {
	path              string
	encoding, syncTok string // request headers
	status            int
	gotSyncTok        string    // response header
	commands          []outcome // one per command sent
}

// outcome is one command of a request: its name and whether it succeeded.
type outcome struct {
	name string
	ok   bool
}

// recorder wraps the server to record every exchange.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	log  []exchange
	hdr  http.Header // the first request's headers, for the test log
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	cw := &captureWriter{ResponseWriter: w, status: http.StatusOK}
	rec.next.ServeHTTP(cw, r)
	ex := exchange{
		path: r.URL.Path, encoding: r.Header.Get("Upstash-Encoding"), syncTok: r.Header.Get("Upstash-Sync-Token"),
		status: cw.status, gotSyncTok: w.Header().Get("Upstash-Sync-Token"),
		commands: outcomes(r.URL.Path, body, cw.body.Bytes()),
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.hdr == nil {
		rec.hdr = r.Header.Clone()
		rec.hdr.Del("Authorization")
	}
	rec.log = append(rec.log, ex)
}

// outcomes pairs the commands of a request with the results of its answer.
func outcomes(path string, req, resp []byte) []outcome {
	var cmds [][]any
	var results []map[string]any
	if path == "/" {
		var cmd []any
		var result map[string]any
		json.Unmarshal(req, &cmd)
		json.Unmarshal(resp, &result)
		cmds, results = [][]any{cmd}, []map[string]any{result}
	} else {
		json.Unmarshal(req, &cmds)
		json.Unmarshal(resp, &results)
	}
	var out []outcome
	for i, cmd := range cmds {
		o := outcome{}
		if len(cmd) > 0 {
			o.name, _ = cmd[0].(string)
			o.name = strings.ToLower(o.name)
		}
		if i < len(results) {
			_, o.ok = results[i]["result"]
		}
		out = append(out, o)
	}
	return out
}

// captureWriter keeps the status and a copy of the body.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *captureWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *captureWriter) Write(b []byte) (int, error) {
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// TestOfficialClient runs testdata/official_client.mjs, which drives this server
// with @upstash/redis and @upstash/ratelimit, so that our server (and through it
// our client) cannot drift from the protocol the official clients speak.
func TestOfficialClient(t *testing.T) {
	modules := testenv.NodeModules(t)
	node := testenv.Node(t)
	rec := &recorder{}
	ts := newTestServer(t, Config{}, func(h http.Handler) http.Handler { rec.next = h; return rec })

	n := "n-" + nonce()
	script := keyLockingLine + "\nreturn {KEYS[1], tonumber(ARGV[1]) * 2, '" + n + "'}"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/official_client.mjs")
	cmd.Env = append(os.Environ(), "UPSTASH_URL="+ts.URL, "UPSTASH_TOKEN="+testToken,
		"KEY_PREFIX="+ts.prefix+"js", "SCRIPT="+script, "NODE_MODULES="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout)
	}
	var out map[string]any
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("node output is not one JSON object: %v\n%s", err, stdout)
	}
	for mode, suffix := range map[string]string{"autoPipelining": "auto", "direct": "direct"} {
		t.Run(mode, func(t *testing.T) {
			replies, _ := out[mode].(map[string]any)
			checkOfficialReplies(t, replies, ts.prefix+"js:"+suffix, script, n)
		})
	}
	if got, _ := out["wrongToken"].(string); !strings.Contains(got, "Unauthorized") {
		t.Errorf("wrongToken = %q, want an error containing Unauthorized", got)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	t.Logf("the official client's headers: %v", rec.hdr)
	checkOfficialWire(t, rec.log)
}

func checkOfficialReplies(t *testing.T, out map[string]any, p, script, n string) {
	t.Helper()
	want := map[string]any{
		"set":        "OK",
		"get":        "hello",
		"setUnicode": "OK",
		"getUnicode": "héllo ✓ 日本",
		"getMissing": nil,
		"incr":       1.0,
		"incrby":     42.0,
		"eval":       []any{p + ":k", "a", 7.0},
		"scriptLoad": sha1Hex(script),
		"evalsha":    []any{p + ":k", 10.0, n},
		"pipeline":   []any{"OK", 1.0, "v", nil},
		"multi":      []any{1.0, 2.0, 2.0}, // the client parses the GET's "2" as a number
		"ratelimit": []any{
			map[string]any{"success": true, "remaining": 1.0, "limit": 2.0},
			map[string]any{"success": true, "remaining": 0.0, "limit": 2.0},
			map[string]any{"success": false, "remaining": 0.0, "limit": 2.0},
		},
	}
	for key, w := range want {
		if got := out[key]; !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v, want %#v", key, got, w)
		}
	}
	errs := map[string]string{
		"evalshaUnknown": "NOSCRIPT",
		"wrongType":      "WRONGTYPE",
		"multiWrongType": "WRONGTYPE",
	}
	for key, w := range errs {
		if got, _ := out[key].(string); !strings.Contains(got, w) {
			t.Errorf("%s = %q, want an error containing %q", key, got, w)
		}
	}
}

// checkOfficialWire checks what the official client sent: base64 encoding asked
// for, every path used, sync tokens echoed, and ratelimit's shebang scripts found
// by EVALSHA after their first EVAL.
func checkOfficialWire(t *testing.T, log []exchange) {
	t.Helper()
	issued := map[string]bool{}
	echoed, paths := 0, map[string]bool{}
	sawEval, warmEvalsha := false, 0
	for i, ex := range log {
		paths[ex.path] = true
		if ex.encoding != "base64" {
			t.Errorf("request %d to %s: Upstash-Encoding %q, want base64", i, ex.path, ex.encoding)
		}
		if issued[ex.syncTok] {
			echoed++
		}
		issued[ex.gotSyncTok] = true
		for _, c := range ex.commands {
			switch {
			case c.name == "eval":
				sawEval = true
			case c.name == "evalsha" && c.ok && sawEval:
				warmEvalsha++
			}
		}
	}
	if !paths["/"] || !paths["/pipeline"] || !paths["/multi-exec"] {
		t.Errorf("paths used: %v, want /, /pipeline and /multi-exec", paths)
	}
	if echoed == 0 {
		t.Error("the official client never sent back an upstash-sync-token it was given")
	}
	// In each mode: our evalsha after scriptLoad, and ratelimit's 2nd and 3rd limit().
	if warmEvalsha < 6 {
		t.Errorf("%d EVALSHA succeeded after the first EVAL, want at least 6", warmEvalsha)
	}
}
