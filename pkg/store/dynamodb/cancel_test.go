package dynamodb

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// fakeAPI answers every request with the reply of its call number (1, 2, ...): the
// last reply repeats.
type fakeAPI struct {
	replies []error // nil: success
	calls   int
}

func (f *fakeAPI) reply() error {
	f.calls++
	return f.replies[min(f.calls, len(f.replies))-1]
}

func (f *fakeAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := f.reply(); err != nil {
		return nil, err
	}
	return &dynamodb.TransactWriteItemsOutput{}, nil
}

func (f *fakeAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if err := f.reply(); err != nil {
		return nil, err
	}
	return &dynamodb.UpdateItemOutput{}, nil
}

func (f *fakeAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, errors.New("fake: no reads")
}

func (f *fakeAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return nil, errors.New("fake: no deletes")
}

// reason is a cancellation reason: code ("" for none) and the old item.
type reason struct {
	code string
	item map[string]types.AttributeValue
}

func canceled(rs ...reason) error {
	e := &types.TransactionCanceledException{Message: aws.String("Transaction cancelled")}
	for _, r := range rs {
		cr := types.CancellationReason{Item: r.item}
		if r.code != "" {
			cr.Code = aws.String(r.code)
		}
		e.CancellationReasons = append(e.CancellationReasons, cr)
	}
	return e
}

func numAttr(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// errAny stands for any error, typed or not.
var errAny = errors.New("any error")

// TestCancellationReasons: every reason DynamoDB can give for cancelling a decision's
// transaction becomes a denial, a retry or a typed error, never a panic, and the
// number of requests stays within the attempts.
func TestCancellationReasons(t *testing.T) {
	window := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 2, "period": "1m"}`)
	bucket := storetest.Set(t, nil, `{"name": "b", "algorithm": "token_bucket", "limit": 10, "period": "1s"}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	start, end := window.Window(0, at)
	p := rulePrefix(window.Rule(0).StateID())
	full := map[string]types.AttributeValue{attrKey: &types.AttributeValueMemberS{Value: "w"},
		p + fWindowStart: numAttr(start), p + fWindowEnd: numAttr(end), p + fCount: numAttr(2)}
	bad := map[string]types.AttributeValue{p + fCount: &types.AttributeValueMemberS{Value: "two"}}
	conflict, none := reason{code: "TransactionConflict"}, reason{code: "None"}
	for _, tc := range []struct {
		name    string
		replies []error
		want    error // nil: a decision
		allowed bool
		calls   int
	}{
		{"conflict every time", []error{canceled(none, conflict)}, ErrContention, false, maxAttempts},
		{"conflict once", []error{canceled(conflict, none), nil}, nil, true, 2},
		{"throttled item", []error{canceled(none, reason{code: "ThrottlingError"})}, ErrThrottled, false, 1},
		{"provisioned throughput", []error{canceled(reason{code: "ProvisionedThroughputExceeded"}, none)}, ErrThrottled, false, 1},
		{"throttled beside a true denial", []error{canceled(reason{"ConditionalCheckFailed", full}, reason{code: "ThrottlingError"})}, nil, false, 1},
		{"malformed item", []error{canceled(reason{"ConditionalCheckFailed", bad}, none)}, ErrMalformedItem, false, 1},
		{"validation error", []error{canceled(reason{code: "ValidationError"}, none)}, errAny, false, 1},
		{"too few reasons", []error{canceled(none)}, errAny, false, 1},
		{"no codes, no items", []error{canceled(reason{}, reason{})}, ErrContention, false, maxAttempts},
		{"failed condition on no item", []error{canceled(reason{code: "ConditionalCheckFailed"}, none), nil}, nil, true, 2},
		{"request throttled", []error{&types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}}, ErrThrottled, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{replies: tc.replies}
			s := NewCounters(api, "t", CountersConfig{})
			cs := []store.Counter{{Key: "w", Set: window}, {Key: "b", Set: bucket}}
			outs := make([]limiter.Decision, 2)
			err := s.Decide(context.Background(), cs, at, 1, outs)
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("error %v, want a decision", err)
			case tc.want != nil && (err == nil || tc.want != errAny && !errors.Is(err, tc.want)):
				t.Fatalf("error %v, want %v", err, tc.want)
			case tc.want == ErrThrottled && !errors.Is(err, store.ErrThrottled):
				t.Fatalf("error %v does not wrap store.ErrThrottled", err)
			case api.calls != tc.calls:
				t.Fatalf("%d requests, want %d", api.calls, tc.calls)
			}
			if d, _ := limiter.Join(outs); err == nil && d.Allowed != tc.allowed {
				t.Fatalf("decided %+v, want allowed %v", d, tc.allowed)
			}
			if err != nil && outs[0] != (limiter.Decision{}) {
				t.Fatalf("error %v left a decision in outs: %+v", err, outs)
			}
		})
	}
}

// TestUpdateConflict: a single-counter UpdateItem on an item that a transaction holds
// (TransactionConflictException) is retried, within the attempts.
func TestUpdateConflict(t *testing.T) {
	set := storetest.Set(t, nil, `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	api := &fakeAPI{replies: []error{&types.TransactionConflictException{Message: aws.String("ongoing")}}}
	if _, err := store.DecideOne(context.Background(), NewCounters(api, "t", CountersConfig{}), "k", set, at, 1); !errors.Is(err, ErrContention) || api.calls != maxAttempts {
		t.Fatalf("error %v after %d requests, want ErrContention after %d", err, api.calls, maxAttempts)
	}
}

// TestProbeCommitted: a probe's conditions cannot hold; should DynamoDB report it
// committed all the same, the decision is an error, not a denial that consumed.
func TestProbeCommitted(t *testing.T) {
	window := storetest.Set(t, nil, `{"name": "w", "algorithm": "fixed_window", "limit": 1, "period": "1m"}`)
	at := storetest.Trace(1, 1, 1, storetest.Burst)[0].At
	api := &fakeAPI{replies: []error{nil}} // every write succeeds
	s := NewCounters(api, "t", CountersConfig{})
	cs := []store.Counter{{Key: "w", Set: window}, {Key: "v", Set: window}}
	outs := make([]limiter.Decision, 2)
	if err := s.Decide(context.Background(), cs, at, 1, outs); err != nil || !outs[0].Allowed {
		t.Fatalf("first request: %+v, %v; want allowed", outs, err)
	}
	if err := s.Decide(context.Background(), cs, at, 1, outs); err == nil || api.calls != 2 {
		t.Fatalf("the probe was reported committed: decided %+v, %v after %d requests; want an error after 2", outs, err, api.calls)
	}
}
