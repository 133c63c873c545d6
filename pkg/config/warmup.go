package config

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/pkg/upstashrest"
)

// warmUpTimeout bounds WarmUp: a store that is down delays a cold start by this much
// at most, and then fails over as it would have at the first decision.
const warmUpTimeout = time.Second

// WarmUp opens the connection the stores' client will use, so that the first decision
// does not pay for DNS, TCP and TLS: the authorizer calls it during its init. It sends
// nothing billable:
//
//   - DynamoDB: a GET of the endpoint's root, which DynamoDB answers "healthy: ..."
//     without an API call (no read unit, no IAM action), over the SDK client's own
//     HTTP client and so into its connection pool;
//   - Upstash: a PING, one command (Upstash bills commands: $0.2 per 100,000, so two
//     millionths of a dollar per cold start);
//   - memory: nothing.
//
// An error (the store down, or slower than a second) is for the caller to log: it
// must not fail a cold start, since the store may be back by the first decision,
// which then fails over by the tenant's fail mode if it is not.
func (s *Stores) WarmUp(ctx context.Context) error {
	if s.warmUp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, warmUpTimeout)
	defer cancel()
	if err := s.warmUp(ctx); err != nil {
		return fmt.Errorf("config: warming up the store's connection: %w", err)
	}
	return nil
}

// dynamoWarmUp returns the warm-up of client: a GET of its endpoint's root.
func dynamoWarmUp(client *dynamodb.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		o := client.Options()
		ep, err := o.EndpointResolverV2.ResolveEndpoint(ctx, dynamodb.EndpointParameters{
			Region: aws.String(o.Region), Endpoint: o.BaseEndpoint})
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.URI.String(), nil)
		if err != nil {
			return err
		}
		resp, err := o.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16)) // read it all: the connection is kept
		return resp.Body.Close()
	}
}

// upstashWarmUp returns the warm-up of client: a PING.
func upstashWarmUp(client *upstashrest.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := client.Do(ctx, "PING")
		return err
	}
}
