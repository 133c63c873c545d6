package dynamodb

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

func counting(ct *testenv.CountingTransport) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: ct} }
}

// TestRoundTrips: a steady trace of 1,000 decisions from one instance takes one
// request per decision when the guess is right, a mean of at most 1.1, never more than 3.
func TestRoundTrips(t *testing.T) {
	ct := &testenv.CountingTransport{}
	st, _, _ := newTestStore(t, counting(ct))
	set := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 20, "period": "1s"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 15}`,
		`{"name": "s", "algorithm": "sliding_window", "limit": 25, "period": "2s"}`)
	key := storetest.Key(t, "k")
	ctx := context.Background()
	total, most, denied := int64(0), int64(0), 0
	for _, r := range storetest.Trace(3, 1000, 1, storetest.Burst) {
		ct.Reset()
		d, err := store.DecideOne(ctx, st, key, set, r.At, 1)
		if err != nil {
			t.Fatal(err)
		}
		n := ct.Reset()
		total, most = total+n, max(most, n)
		if !d.Allowed {
			denied++
		}
	}
	mean := float64(total) / 1000
	t.Logf("1000 decisions (%d denied): %d requests, mean %.3f, most %d", denied, total, mean, most)
	if mean > 1.1 || most > 3 || denied == 0 {
		t.Fatalf("mean %.3f requests per decision (want <= 1.1), most %d (want <= 3), %d denied (want some)", mean, most, denied)
	}
}

// TestCapacity: an allowed decision on an item under 1 KB consumes 1 write unit and 0
// read units (DynamoDB Local reports ConsumedCapacity as DynamoDB does).
func TestCapacity(t *testing.T) {
	st, client, table := newTestStore(t)
	set := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 1000, "period": "day"}`,
		`{"name": "b", "algorithm": "token_bucket", "limit": 100, "period": "1s", "burst": 500}`,
		`{"name": "l", "algorithm": "sliding_log", "limit": 20, "period": "1s"}`)
	key := storetest.Key(t, "k")
	ctx := context.Background()
	trace := storetest.Trace(4, 50, 1, storetest.Burst)
	for _, r := range trace {
		if _, err := store.DecideOne(ctx, st, key, set, r.At, 1); err != nil {
			t.Fatal(err)
		}
	}
	stats := st.Stats()
	out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: st.key(key)})
	if err != nil {
		t.Fatal(err)
	}
	size := itemSize(out.Item)
	t.Logf("%d writes, %d committed: %.0f write units, %.0f read units; item size %d bytes", stats.Writes, stats.Committed, stats.WriteUnits, stats.ReadUnits, size)
	if size >= 1024 {
		t.Fatalf("item is %d bytes, want under 1 KB", size)
	}
	if stats.ReadUnits != 0 || stats.Committed == 0 || stats.WriteUnits != float64(stats.Committed) {
		t.Fatalf("%.1f write units and %.1f read units for %d committed writes: want 1 write unit each and no reads", stats.WriteUnits, stats.ReadUnits, stats.Committed)
	}
}

// itemSize is DynamoDB's item size: attribute names plus values (numbers at their
// decimal length, a fair upper bound of their encoded size).
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)
	case *types.AttributeValueMemberM:
		return 3 + itemSize(v.Value) + len(v.Value)
	}
	return 1
}

// TestClockSkew: two instances whose clocks are 500ms apart share one token bucket
// under traffic above its rate for 20s; they admit at most burst + (elapsed + skew) x
// rate, the bound the package documents.
func TestClockSkew(t *testing.T) {
	a, client, table := newTestStore(t)
	b := NewCounters(client, table, CountersConfig{})
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 10, "period": "1s", "burst": 5}`)
	key := storetest.Key(t, "k")
	ctx := context.Background()
	const skew = 500_000
	start := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	admitted := 0
	for i := range 400 { // 20 requests/s for 20 s, alternating instances
		at := start + int64(i)*50_000
		st, now := a, at
		if i%2 == 1 {
			st, now = b, at+skew // b's clock is ahead
		}
		d, err := store.DecideOne(ctx, st, key, set, now, 1)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			admitted++
		}
	}
	elapsed := 400 * 50_000
	bound := 5 + (elapsed+skew)*10/1_000_000
	t.Logf("admitted %d in 20s; bound %d (burst 5 + (20s + 0.5s) x 10/s)", admitted, bound)
	if admitted > bound {
		t.Fatalf("admitted %d, above the documented bound %d", admitted, bound)
	}
}

// TestErrors: backend failures become typed errors, never panics.
func TestErrors(t *testing.T) {
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	ctx := context.Background()
	t.Run("no such table", func(t *testing.T) {
		s := NewCounters(newClient(testenv.DynamoDBURL(t)), "no-such-table", CountersConfig{})
		if _, err := store.DecideOne(ctx, s, "k", set, at, 1); !errors.Is(err, ErrTableNotFound) {
			t.Fatalf("error %v, want ErrTableNotFound", err)
		}
	})
	t.Run("item of the wrong shape", func(t *testing.T) {
		st, client, table := newTestStore(t)
		prefix := rulePrefix(set.Rule(0).StateID())
		item, _ := attributevalue.MarshalMap(map[string]any{attrKey: "bad", prefix + fTAT: "not a number"})
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.DecideOne(ctx, st, "bad", set, at, 1); !errors.Is(err, ErrMalformedItem) {
			t.Fatalf("error %v, want ErrMalformedItem", err)
		}
	})
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		timeout bool
		want    error
	}{
		{"throttled", 400, `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"slow down"}`, false, ErrThrottled},
		{"request limit", 400, `{"__type":"com.amazonaws.dynamodb.v20120810#RequestLimitExceeded","message":"too many"}`, false, ErrThrottled},
		{"server error", 500, `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"oops"}`, false, nil},
		{"garbage", 200, `<html>`, false, nil},
		{"no answer", 0, "", true, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if tc.timeout {
					select {
					case <-r.Context().Done():
					case <-release:
					}
					return
				}
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			defer close(release)
			ct := &testenv.CountingTransport{}
			s := NewCounters(newClient(srv.URL, counting(ct)), "t", CountersConfig{})
			ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			_, err := store.DecideOne(ctx, s, "k", set, at, 1)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if n := ct.Count(); n != 1 {
				t.Fatalf("%d requests: the SDK retried, or the Counters did", n)
			}
		})
	}
}
