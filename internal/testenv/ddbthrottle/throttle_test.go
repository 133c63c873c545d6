package ddbthrottle_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/internal/testenv/ddbthrottle"
)

// clock is a settable clock for the Throttle.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// upstream stands in for DynamoDB Local: every request succeeds with an empty object,
// which the SDK reads as an item-less answer. It counts what reaches it.
func upstream(t *testing.T) (*httptest.Server, *int) {
	var mu sync.Mutex
	n := new(int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*n++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte("{}"))
	}))
	t.Cleanup(srv.Close)
	return srv, n
}

// client is an SDK client whose requests go through th to a stub DynamoDB; retries are
// off, as edgelimit's decision calls have them.
func client(t *testing.T, th *ddbthrottle.Throttle) (*dynamodb.Client, *int) {
	srv, n := upstream(t)
	c := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(srv.URL),
		HTTPClient:   &http.Client{Transport: th.Transport(nil)},
		Retryer:      aws.NopRetryer{},
	})
	return c, n
}

func key(k string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}
}

func update(c *dynamodb.Client, k string) error {
	_, err := c.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String("counters"), Key: key(k), UpdateExpression: aws.String("SET v = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "1"}},
	})
	return err
}

func get(c *dynamodb.Client, k string, consistent bool) error {
	_, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("counters"), Key: key(k), ConsistentRead: aws.Bool(consistent)})
	return err
}

// TestWritesOverAKeysCapacity: a key's third write within a second of a capacity of 2
// is refused with a ProvisionedThroughputExceededException the SDK decodes, HTTP 400,
// with the key-range throttling reason and the table's ARN; another key is not
// affected, and the key has capacity again as time passes. Nothing refused reaches
// DynamoDB.
func TestWritesOverAKeysCapacity(t *testing.T) {
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	th := ddbthrottle.New(ddbthrottle.Config{WriteUnits: 2, Now: clk.Now})
	c, reached := client(t, th)
	for i := range 2 {
		if err := update(c, "hot"); err != nil {
			t.Fatalf("write %d within capacity: %v", i, err)
		}
	}
	err := update(c, "hot")
	var pte *types.ProvisionedThroughputExceededException
	if !errors.As(err, &pte) {
		t.Fatalf("third write: %v (%T), want a ProvisionedThroughputExceededException", err, err)
	}
	want := types.ThrottlingReason{Reason: aws.String("TableWriteKeyRangeThroughputExceeded"), Resource: aws.String("arn:aws:dynamodb:us-east-1:000000000000:table/counters")}
	if len(pte.ThrottlingReasons) != 1 || aws.ToString(pte.ThrottlingReasons[0].Reason) != *want.Reason || aws.ToString(pte.ThrottlingReasons[0].Resource) != *want.Resource {
		t.Fatalf("throttling reasons %+v, want [%s on %s]", pte.ThrottlingReasons, *want.Reason, *want.Resource)
	}
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusBadRequest || pte.ErrorCode() != "ProvisionedThroughputExceededException" {
		t.Fatalf("status and code of %v: want 400 ProvisionedThroughputExceededException", err)
	}
	if err := update(c, "cold"); err != nil {
		t.Fatalf("another key: %v", err)
	}
	clk.add(500 * time.Millisecond)
	if err := update(c, "hot"); err != nil {
		t.Fatalf("half a second later, one write unit is back: %v", err)
	}
	if got, want := th.Stats("counters", "hot"), (ddbthrottle.Stats{Writes: 3, ThrottledWrites: 1}); got != want || *reached != 4 {
		t.Fatalf("stats %+v, want %+v; %d requests reached DynamoDB, want 4", got, want, *reached)
	}
}

// TestOnDemandAnswersThrottlingException: an on-demand table's refusal is a
// ThrottlingException with the same reason.
func TestOnDemandAnswersThrottlingException(t *testing.T) {
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	c, _ := client(t, ddbthrottle.New(ddbthrottle.Config{WriteUnits: 2, OnDemand: true, Now: clk.Now}))
	update(c, "k")
	update(c, "k")
	var te *types.ThrottlingException
	if err := update(c, "k"); !errors.As(err, &te) || len(te.ThrottlingReasons) != 1 || aws.ToString(te.ThrottlingReasons[0].Reason) != "TableWriteKeyRangeThroughputExceeded" {
		t.Fatalf("%v: want a ThrottlingException with reason TableWriteKeyRangeThroughputExceeded", err)
	}
}

// TestReadsHaveTheirOwnCapacity: reads draw on the read capacity (an eventually
// consistent read half a unit), apart from writes.
func TestReadsHaveTheirOwnCapacity(t *testing.T) {
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	c, _ := client(t, ddbthrottle.New(ddbthrottle.Config{ReadUnits: 2, WriteUnits: 2, Now: clk.Now}))
	for i, consistent := range []bool{true, false, false} {
		if err := get(c, "k", consistent); err != nil {
			t.Fatalf("read %d (2 units: 1 + 0.5 + 0.5): %v", i, err)
		}
	}
	var pte *types.ProvisionedThroughputExceededException
	if err := get(c, "k", false); !errors.As(err, &pte) || aws.ToString(pte.ThrottlingReasons[0].Reason) != "TableReadKeyRangeThroughputExceeded" {
		t.Fatalf("fourth read: %v, want a read key-range throttle", err)
	}
	if err := update(c, "k"); err != nil {
		t.Fatalf("a write after the reads ran out: %v", err)
	}
}

// TestTransactionCancelled: a transaction with an item over its key's capacity is
// cancelled whole, with a reason per item in order, and charges nothing.
func TestTransactionCancelled(t *testing.T) {
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	th := ddbthrottle.New(ddbthrottle.Config{WriteUnits: 2, Now: clk.Now})
	c, _ := client(t, th)
	update(c, "hot")
	transact := func() error {
		_, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String("counters"), Key: key("cold"), UpdateExpression: aws.String("SET v = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "1"}}}},
			{Update: &types.Update{TableName: aws.String("counters"), Key: key("hot"), UpdateExpression: aws.String("SET v = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "1"}}}},
		}})
		return err
	}
	var tce *types.TransactionCanceledException
	if err := transact(); !errors.As(err, &tce) {
		t.Fatalf("%v (%T): want a TransactionCanceledException", err, err)
	}
	codes := []string{}
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	if len(codes) != 2 || codes[0] != "None" || codes[1] != "ProvisionedThroughputExceeded" {
		t.Fatalf("cancellation reasons %v, want [None ProvisionedThroughputExceeded]", codes)
	}
	if got := th.Stats("counters", "cold"); got.Writes != 0 {
		t.Fatalf("the cancelled transaction charged its other item: %+v", got)
	}
	clk.add(2 * time.Second)
	if err := transact(); err != nil {
		t.Fatalf("with capacity back: %v", err)
	}
}

// TestProxy: several clients through one proxy share each key's capacity.
func TestProxy(t *testing.T) {
	clk := &clock{now: time.Unix(1_800_000_000, 0)}
	th := ddbthrottle.New(ddbthrottle.Config{WriteUnits: 3, Now: clk.Now})
	srv, _ := upstream(t)
	h, err := th.Proxy(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(h)
	defer proxy.Close()
	var throttled int
	for i := range 6 {
		c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(proxy.URL), Retryer: aws.NopRetryer{},
			Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
		var pte *types.ProvisionedThroughputExceededException
		if err := update(c, "k"); errors.As(err, &pte) {
			throttled++
		} else if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if got := th.Stats("counters", "k"); throttled != 3 || got != (ddbthrottle.Stats{Writes: 3, ThrottledWrites: 3}) {
		t.Fatalf("6 clients, capacity 3: %d throttled, stats %+v", throttled, got)
	}
}
