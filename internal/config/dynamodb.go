//go:build edgelimit.dynamodb || !(edgelimit.upstash || edgelimit.redis)

package config

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	ddbstore "github.com/edgelimit/edgelimit/pkg/store/dynamodb"
)

// This build has the dynamodb backend (see Backends).
func init() { builders[BackendDynamoDB] = Config.buildDynamoDB }

// buildDynamoDB makes the dynamodb backend's stores over one SDK client.
func (c Config) buildDynamoDB(ctx context.Context, opts Options) (*Stores, error) {
	client, err := c.dynamoDBClient(ctx, opts)
	if err != nil {
		return nil, err
	}
	st := &Stores{Counters: ddbstore.NewCounters(client, c.CountersTable, ddbstore.CountersConfig{}), warmUp: dynamoWarmUp(client),
		// ErrContention: every attempt's condition failed, nothing was written.
		retryable: func(err error) bool { return errors.Is(err, ddbstore.ErrContention) }}
	if c.TenantsTable != "" {
		st.Tenants = ddbstore.NewTenants(client, c.TenantsTable)
	}
	return st, nil
}

// dynamoDBClient makes the DynamoDB client of c: the AWS configuration (awsConfig),
// with Options.HTTPClient and c.DynamoDBEndpoint when they are set.
func (c Config) dynamoDBClient(ctx context.Context, opts Options) (*dynamodb.Client, error) {
	awsCfg, err := c.awsConfig(ctx, opts)
	if err != nil {
		return nil, err
	}
	client := dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		if opts.HTTPClient != nil {
			o.HTTPClient = opts.HTTPClient
		}
		if c.DynamoDBEndpoint != "" { // the SDK reads it too; this honours Load's getenv
			o.BaseEndpoint = aws.String(c.DynamoDBEndpoint)
		}
		// DynamoDB Local sends no X-Amz-Crc32 header on error replies, which the SDK
		// then checks against 0, logging a WARN for each (a denial is one).
		o.DisableValidateResponseChecksum = isLoopbackURL(c.DynamoDBEndpoint)
	})
	return client, nil
}

// isLoopbackURL reports whether raw is a URL of this machine (DynamoDB Local).
func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "localhost" || ip != nil && ip.IsLoopback()
}

// tableExists asks DynamoDB whether the table exists (in any state).
func tableExists(ctx context.Context, client *dynamodb.Client, table string) (bool, error) {
	_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if _, notFound := errors.AsType[*types.ResourceNotFoundException](err); notFound {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("config: DynamoDB table %s: %w", table, err)
	}
	return true, nil
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

// tableWait bounds how long CreateTables waits for a new table to become active.
const tableWait = time.Minute

// CreateTables creates the DynamoDB tables c names that do not exist, as the deployment
// template would (pkg/store/dynamodb.CreateTable), and returns the names of those it created. It is
// for `edgelimit dev` against DynamoDB Local or an account of one's own; deployed
// functions never call it. Other backends, and the tenants table when tenants come from
// a file, need nothing: it returns nil.
func (c Config) CreateTables(ctx context.Context, opts Options) ([]string, error) {
	if c.Backend != BackendDynamoDB {
		return nil, nil
	}
	client, err := c.dynamoDBClient(ctx, opts)
	if err != nil {
		return nil, err
	}
	tables := []struct {
		name string
		kind ddbstore.TableKind
	}{{c.TenantsTable, ddbstore.TenantsTable}, {c.CountersTable, ddbstore.CountersTable}}
	if c.TenantsFile != "" {
		tables = tables[1:]
	}
	var created []string
	for _, t := range tables {
		exists, err := tableExists(ctx, client, t.name)
		if err != nil {
			return created, err
		}
		if exists {
			continue
		}
		if err := ddbstore.CreateTable(ctx, client, t.name, t.kind, tableWait); err != nil {
			return created, err
		}
		created = append(created, t.name)
	}
	return created, nil
}
