// Package config reads edgelimit's environment (the Configuration table of docs/reference.md)
// and builds what it names: the tenant store, the counter store and the gate. The
// Lambda functions and `edgelimit dev` read the same variables through it.
//
// Load parses and checks every variable before anything is built, so a deployment with
// a typo fails at its cold start with a message naming the variable, instead of at its
// first request. CheckNames refuses an EDGELIMIT_* name that Load does not read, naming
// the closest known one (the test scripts' EDGELIMIT_TEST_*, EDGELIMIT_TOOLS and
// EDGELIMIT_SERVICES* pass); Open checks Options.Environ so, and the functions and
// `edgelimit dev` give it os.Environ. Build then makes the stores:
//
//   - memory: tenants from EDGELIMIT_TENANTS_FILE (an empty store without it), counters
//     in this process. For local runs and tests: every Lambda instance counts alone.
//   - dynamodb: tenants in EDGELIMIT_TENANTS_TABLE, counters in EDGELIMIT_COUNTERS_TABLE,
//     through aws-sdk-go-v2, with the Lambda role's credentials and region from the
//     environment (LambdaAWSConfig; Options.AWSConfig takes another source, such as
//     the SDK's default chain of internal/config/awsdefault for `edgelimit dev`).
//     AWS_ENDPOINT_URL_DYNAMODB points it at DynamoDB Local.
//   - upstash: tenants and counters in one Upstash Redis database, UPSTASH_REDIS_REST_URL
//     and UPSTASH_REDIS_REST_TOKEN. When the token is unset and
//     UPSTASH_REDIS_REST_TOKEN_SECRET_ARN is set, the token is read from AWS Secrets
//     Manager at start and again after a 401, at most once a minute (GetSecretValue, SigV4-signed with the function's credentials;
//     AWS_ENDPOINT_URL_SECRETS_MANAGER overrides the endpoint). The secret's
//     SecretString is the token itself.
//   - redis: tenants and counters in Redis or Valkey over RESP (pkg/store/redis: a
//     server, ElastiCache, MemoryDB), EDGELIMIT_REDIS_ADDR (host:port, or a cluster's
//     nodes comma-separated, with EDGELIMIT_REDIS_CLUSTER=true). EDGELIMIT_REDIS_TLS
//     turns on in-transit encryption (the system's CAs); the AUTH token is
//     EDGELIMIT_REDIS_AUTH_TOKEN, or is read from Secrets Manager as Upstash's is, from
//     EDGELIMIT_REDIS_AUTH_TOKEN_SECRET_ARN. One connection pool, opened by Build, serves
//     both stores for the life of the process.
//
// With EDGELIMIT_TENANTS_FILE set, tenants always come from the file, whatever the
// backend: a small deployment can keep its tenants in the function's package and its
// counters in DynamoDB or Upstash.
//
// Stores.WarmUp opens the stores' connection, for the authorizer's init.
//
// The build tags edgelimit.dynamodb, edgelimit.upstash and edgelimit.redis build a
// binary with those backends and memory only (Backends); without any of them it has
// every backend. Load refuses an EDGELIMIT_BACKEND that the binary was built without,
// naming what it has. The template's authorizer functions are built so, one per backend.
package config
