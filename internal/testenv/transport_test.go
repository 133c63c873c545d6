package testenv

import (
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
