package testenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCountingTransportCountsEveryRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ct := &CountingTransport{}
	client := &http.Client{Transport: ct}
	for range 3 {
		resp, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := ct.Count(); got != 3 {
		t.Fatalf("Count() = %d, want 3", got)
	}
	if got := ct.Reset(); got != 3 || ct.Count() != 0 {
		t.Fatalf("Reset() = %d then Count() = %d, want 3 then 0", got, ct.Count())
	}
}

func TestCountingProxyCountsAndForwards(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.URL.Path+" "+r.Header.Get("X-Test"))
	}))
	defer srv.Close()
	p := NewCountingProxy(t, srv.URL)
	for i := range 3 {
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/pipeline", nil)
		req.Header.Set("X-Test", "v")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "/pipeline v" {
			t.Errorf("request %d: the server answered %q", i, body)
		}
	}
	if n := p.Reset(); n != 3 || p.Count() != 0 {
		t.Errorf("counted %d, then %d; want 3, then 0", n, p.Count())
	}
}
