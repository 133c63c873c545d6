package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The variables scripts/services.sh exports, one per service.
const (
	EnvRedisAddr      = "EDGELIMIT_TEST_REDIS_ADDR"    // host:port of redis-server
	EnvRedisCluster   = "EDGELIMIT_TEST_REDIS_CLUSTER" // host:port,... of a 3-node Redis Cluster
	EnvUpstashURL     = "EDGELIMIT_TEST_UPSTASH_URL"   // base URL of the local Upstash REST server
	EnvUpstashToken   = "EDGELIMIT_TEST_UPSTASH_TOKEN" // its bearer token
	EnvDynamoDBURL    = "EDGELIMIT_TEST_DYNAMODB_URL"  // endpoint of DynamoDB Local
	EnvRIE            = "EDGELIMIT_TEST_RIE"           // path of the aws-lambda-rie binary
	EnvNodeModules    = "EDGELIMIT_TEST_NODE_MODULES"  // node_modules holding the npm test packages
	envCI             = "CI"
	startServicesHint = "run `make test`, which starts the test services"
)

// Require returns the value of the environment variable name. When it is unset the
// test is skipped, or fails when CI is set: integration tests must not pass by skipping.
func Require(tb testing.TB, name string) string {
	tb.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	if os.Getenv(envCI) != "" {
		tb.Fatalf("%s is not set under CI: %s", name, startServicesHint)
	}
	tb.Skipf("%s is not set: %s", name, startServicesHint)
	return ""
}

// RedisAddr returns the host:port of the test redis-server.
func RedisAddr(tb testing.TB) string { tb.Helper(); return Require(tb, EnvRedisAddr) }

// RedisCluster returns the host:port of each node of the test Redis Cluster (3
// primaries, no replicas).
func RedisCluster(tb testing.TB) []string {
	tb.Helper()
	return strings.Split(Require(tb, EnvRedisCluster), ",")
}

// UpstashURL returns the base URL and token of the local Upstash REST server.
func UpstashURL(tb testing.TB) (url, token string) {
	tb.Helper()
	return Require(tb, EnvUpstashURL), Require(tb, EnvUpstashToken)
}

// DynamoDBURL returns the endpoint of DynamoDB Local.
func DynamoDBURL(tb testing.TB) string { tb.Helper(); return Require(tb, EnvDynamoDBURL) }

// RIE returns the path of the Lambda runtime interface emulator binary.
func RIE(tb testing.TB) string { tb.Helper(); return Require(tb, EnvRIE) }

// NodeModules returns the node_modules folder holding the npm test packages.
func NodeModules(tb testing.TB) string { tb.Helper(); return Require(tb, EnvNodeModules) }

// Node returns the path of node, skipping the test without it (failing when CI is set).
func Node(tb testing.TB) string {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		return node
	}
	if os.Getenv(envCI) != "" {
		tb.Fatal("node is not installed under CI: " + startServicesHint)
	}
	tb.Skip("node is not installed")
	return ""
}
