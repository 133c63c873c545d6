package upstashlocal

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A Redis that cannot be reached is the server's failure, not the command's: a 500
// whose error names upstash-local, for one command and for a pipeline alike.
func TestUnreachableRedisIs500(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: every dial is refused
	s, err := New(Config{RedisAddr: addr, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for path, body := range map[string]string{"/": `["PING"]`, "/pipeline": `[["PING"]]`, "/multi-exec": `[["PING"]]`, "/PING": ""} {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusInternalServerError || !strings.HasPrefix(rec.Body.String(), `{"error":"ERR upstash-local: `) {
			t.Errorf("%s: %d %s, want 500 and an upstash-local error", path, rec.Code, rec.Body)
		}
	}
}
