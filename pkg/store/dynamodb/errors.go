package dynamodb

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/edgelimit/edgelimit/pkg/store"
)

// Errors of the Counters. Each wraps the SDK error it came from, when there is one.
var (
	// ErrContention: the item changed under every one of the 3 attempts.
	ErrContention = errors.New("dynamodb: state kept changing under the decision")
	// ErrThrottled: DynamoDB refused the request for capacity or rate. It wraps
	// store.ErrThrottled.
	ErrThrottled = fmt.Errorf("dynamodb: %w", store.ErrThrottled)
	// ErrTableNotFound: the counters table does not exist (or is not active).
	ErrTableNotFound = errors.New("dynamodb: table not found")
	// ErrMalformedItem: the item holds an attribute of the wrong type or value, for
	// example one written by hand.
	ErrMalformedItem = errors.New("dynamodb: malformed item")
	// ErrUnsupported: the rule set uses something this backend does not offer, such as
	// a sliding_log limit above MaxLogLimit.
	ErrUnsupported = errors.New("dynamodb: unsupported rule")
)

// classify maps an SDK error to the Counters's errors.
func classify(op string, err error) error {
	var api smithy.APIError
	switch {
	case errors.As(err, new(*types.ResourceNotFoundException)):
		return fmt.Errorf("%s: %w: %w", op, ErrTableNotFound, err)
	case errors.As(err, new(*types.ProvisionedThroughputExceededException)), errors.As(err, new(*types.RequestLimitExceeded)):
		return fmt.Errorf("%s: %w: %w", op, ErrThrottled, err)
	case errors.As(err, &api) && api.ErrorCode() == "ThrottlingException":
		return fmt.Errorf("%s: %w: %w", op, ErrThrottled, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
