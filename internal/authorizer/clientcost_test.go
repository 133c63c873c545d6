package authorizer_test

import (
	"context"
	"maps"
	"testing"

	"github.com/edgelimit/edgelimit/internal/request"
)

// clientCost is what a client might send to claim a cost of its own: the authorizer
// reads none of it (a request's cost comes from its route, or a trusted layer).
var clientCost = map[string]string{
	"X-RateLimit-Cost": "100", "X-RateLimit-Settle-Cost": "100", "X-Cost": "100", "Cost": "100",
}

// TestClientCostChangesNothing: a REST and an HTTP event that carry cost headers and
// query parameters are decided as the same events without them.
func TestClientCostChangesNothing(t *testing.T) {
	rest, http := restEvent(t, "rest-valid-key"), httpEvent(t, "http-valid-key")
	maps.Copy(rest.Headers, clientCost)
	rest.QueryStringParameters = map[string]string{"cost": "100", "x-ratelimit-cost": "100"}
	rest.MultiValueHeaders = map[string][]string{"X-RateLimit-Cost": {"100"}}
	maps.Copy(http.Headers, clientCost)
	http.QueryStringParameters = map[string]string{"cost": "100"}
	http.RawQueryString = "cost=100"
	if req, _ := request.FromRESTAuthorizer(rest, "x-api-key"); req.Cost != 0 {
		t.Errorf("REST request cost %d, want 0 (the route's)", req.Cost)
	}
	if req := request.FromHTTPAuthorizer(http, "x-api-key"); req.Cost != 0 {
		t.Errorf("HTTP request cost %d, want 0 (the route's)", req.Cost)
	}
	hs := newHarness(t, "", nil)
	for i := range 5 {
		resp, err := hs.h.REST(context.Background(), rest)
		if err != nil || resp.Context["remaining"] != int64(4-i) {
			t.Fatalf("REST request %d: context %v, %v: want remaining %d, each request counted 1", i+1, resp.Context, err, 4-i)
		}
	}
	hs = newHarness(t, "", nil)
	for i := range 5 {
		resp, err := hs.h.HTTP(context.Background(), http)
		if err != nil || !resp.IsAuthorized || resp.Context["remaining"] != int64(4-i) {
			t.Fatalf("HTTP request %d: %+v, %v: want remaining %d, each request counted 1", i+1, resp, err, 4-i)
		}
	}
}
