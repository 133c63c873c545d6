package config

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// The environment variables Load reads.
const (
	EnvBackend           = "EDGELIMIT_BACKEND"
	EnvTenantsTable      = "EDGELIMIT_TENANTS_TABLE"
	EnvCountersTable     = "EDGELIMIT_COUNTERS_TABLE"
	EnvTenantsFile       = "EDGELIMIT_TENANTS_FILE"
	EnvUpstashURL        = "UPSTASH_REDIS_REST_URL"
	EnvUpstashToken      = "UPSTASH_REDIS_REST_TOKEN"
	EnvUpstashSecretARN  = "UPSTASH_REDIS_REST_TOKEN_SECRET_ARN"
	EnvUpstashLocking    = "EDGELIMIT_UPSTASH_KEY_LOCKING"
	EnvUpstashPipelining = "EDGELIMIT_UPSTASH_PIPELINING"
	EnvUpstashPrefix     = "EDGELIMIT_UPSTASH_PREFIX"
	EnvKeyHeader         = "EDGELIMIT_KEY_HEADER"
	EnvLatencyBudget     = "EDGELIMIT_LATENCY_BUDGET"
	EnvConfigTTL         = "EDGELIMIT_CONFIG_TTL"
	EnvHTTPAPIResponse   = "EDGELIMIT_HTTP_API_RESPONSE"
	EnvFailMode          = "EDGELIMIT_FAIL_MODE"
	EnvAnonymousTenant   = "EDGELIMIT_ANONYMOUS_TENANT"
	EnvUsageIdentifier   = "EDGELIMIT_USAGE_IDENTIFIER"
	EnvLogLevel          = "EDGELIMIT_LOG_LEVEL"
	EnvDefaultRules      = "EDGELIMIT_DEFAULT_RULES"
	EnvHotCounters       = "EDGELIMIT_HOT_COUNTERS"
	EnvHotThreshold      = "EDGELIMIT_HOT_THRESHOLD"
	EnvHotLeaseTime      = "EDGELIMIT_HOT_LEASE_TIME"
	EnvDynamoDBEndpoint  = "AWS_ENDPOINT_URL_DYNAMODB"
	EnvSecretsEndpoint   = "AWS_ENDPOINT_URL_SECRETS_MANAGER"

	EnvRedisAddr      = "EDGELIMIT_REDIS_ADDR" // host:port, or several (a cluster's), comma-separated
	EnvRedisCluster   = "EDGELIMIT_REDIS_CLUSTER"
	EnvRedisTLS       = "EDGELIMIT_REDIS_TLS"
	EnvRedisUsername  = "EDGELIMIT_REDIS_USERNAME"
	EnvRedisToken     = "EDGELIMIT_REDIS_AUTH_TOKEN"
	EnvRedisSecretARN = "EDGELIMIT_REDIS_AUTH_TOKEN_SECRET_ARN"
	EnvRedisPrefix    = "EDGELIMIT_REDIS_PREFIX"
)

// The backends.
const (
	BackendMemory   = "memory"
	BackendDynamoDB = "dynamodb"
	BackendUpstash  = "upstash"
	BackendRedis    = "redis"
)

// Config is the environment, parsed and checked. Zero durations and empty strings mean
// the defaults of the packages they configure.
type Config struct {
	Backend           string // memory (the default), dynamodb, upstash or redis
	TenantsTable      string
	CountersTable     string
	TenantsFile       string
	UpstashURL        string
	UpstashToken      string
	UpstashSecretARN  string
	UpstashLocking    bool   // send scripts with Upstash's allow-key-locking flag (default true)
	UpstashPipelining bool   // share requests between concurrent calls (default false)
	UpstashPrefix     string // starts the tenant store's Redis keys (default el:t:)
	KeyHeader         string // default x-api-key
	LatencyBudget     time.Duration
	ConfigTTL         time.Duration // "0" in the environment turns caching off: -1 here
	HTTPAPIResponse   string        // simple (default) or iam
	FailMode          tenant.FailMode
	AnonymousTenant   string
	UsageIdentifier   string // none (default) or api-key
	LogLevel          slog.Level
	DefaultRules      []limiter.Rule // for tenants created without rules (the admin API)
	// HotCounters serves hot counters from instance-local leases (pkg/hotcounter):
	// "on", "off", or "" for the default, on with DynamoDB and off otherwise.
	HotCounters      string
	HotThreshold     int64         // decisions per second; 0: hotcounter's default
	HotLeaseTime     time.Duration // 0: hotcounter's default
	DynamoDBEndpoint string
	SecretsEndpoint  string
	Redis            Redis
	// ReservationSecret seals reservations (gate.Config.ReservationSecret), from
	// EDGELIMIT_RESERVATION_SECRET; ReservationSecretARN names the Secrets Manager
	// secret that holds it instead, read by Build. Neither: no reservations.
	ReservationSecret    []byte
	ReservationSecretARN string
}

// Redis is the configuration of the redis backend (EDGELIMIT_REDIS_*).
type Redis struct {
	Addrs     []string // host:port of the server, or of nodes of the cluster
	Cluster   bool     // speak the Redis Cluster protocol
	TLS       bool     // in-transit encryption (the system's CAs; SSL_CERT_FILE adds one)
	Username  string   // an ACL user; "" authenticates the default user
	Token     string   // the AUTH token (password); "" with SecretARN unset: no AUTH
	SecretARN string   // read Token from this Secrets Manager secret instead
	Prefix    string   // starts the tenants' keys, and is their hash tag (default el:t:)
}

// Load reads the configuration through getenv (os.Getenv in the functions) and checks
// it. The error names the variable.
func Load(getenv func(string) string) (Config, error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	c := Config{
		Backend: cmp.Or(strings.ToLower(get(EnvBackend)), BackendMemory), TenantsTable: get(EnvTenantsTable),
		CountersTable: get(EnvCountersTable), TenantsFile: get(EnvTenantsFile),
		UpstashURL: get(EnvUpstashURL), UpstashToken: get(EnvUpstashToken),
		UpstashSecretARN: get(EnvUpstashSecretARN), UpstashPrefix: get(EnvUpstashPrefix), KeyHeader: get(EnvKeyHeader),
		HTTPAPIResponse: strings.ToLower(get(EnvHTTPAPIResponse)), FailMode: tenant.FailMode(strings.ToLower(get(EnvFailMode))),
		AnonymousTenant: get(EnvAnonymousTenant), UsageIdentifier: strings.ToLower(get(EnvUsageIdentifier)),
		DynamoDBEndpoint: get(EnvDynamoDBEndpoint), SecretsEndpoint: get(EnvSecretsEndpoint),
		HotCounters: strings.ToLower(get(EnvHotCounters)),
	}
	steps := []func(func(string) string) error{c.parseDurations, c.parseChoices, c.checkBuilt, c.parseRules, c.parseHot, c.parseRedis, c.parseReservation, c.checkBackend}
	for _, step := range steps {
		if err := step(get); err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

func (c *Config) parseDurations(get func(string) string) error {
	var err error
	if c.LatencyBudget, err = duration(EnvLatencyBudget, get(EnvLatencyBudget)); err != nil {
		return err
	}
	raw := get(EnvConfigTTL)
	if c.ConfigTTL, err = duration(EnvConfigTTL, raw); err != nil {
		return err
	}
	if raw != "" && c.ConfigTTL == 0 {
		c.ConfigTTL = -1 // explicitly 0: no caching
	}
	return nil
}

// duration parses a Go duration ("100ms"); "" is 0, the default.
func duration(name, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("config: %s = %q: want a Go duration such as 100ms or 10s", name, s)
	}
	return d, nil
}

func (c *Config) parseChoices(get func(string) string) error {
	checks := []struct {
		name, value string
		allowed     []string
	}{
		{EnvBackend, c.Backend, []string{BackendMemory, BackendDynamoDB, BackendUpstash, BackendRedis}},
		{EnvHTTPAPIResponse, c.HTTPAPIResponse, []string{"simple", "iam"}},
		{EnvFailMode, string(c.FailMode), []string{"open", "closed"}},
		{EnvUsageIdentifier, c.UsageIdentifier, []string{"none", "api-key"}},
		{EnvHotCounters, c.HotCounters, []string{"on", "off"}},
	}
	for _, ch := range checks { // "" is each one's default (Load sets the backend's)
		if ch.value != "" && !slices.Contains(ch.allowed, ch.value) {
			return fmt.Errorf("config: %s = %q: want one of %s", ch.name, ch.value, strings.Join(ch.allowed, ", "))
		}
	}
	if c.AnonymousTenant != "" && !tenant.ValidID(c.AnonymousTenant) {
		return fmt.Errorf("config: %s = %q: not a tenant id (lowercase letters, digits, '_' and '-')", EnvAnonymousTenant, c.AnonymousTenant)
	}
	c.UpstashLocking = true // the default
	if err := parseBool(EnvUpstashLocking, get(EnvUpstashLocking), &c.UpstashLocking); err != nil {
		return err
	}
	if err := parseBool(EnvUpstashPipelining, get(EnvUpstashPipelining), &c.UpstashPipelining); err != nil {
		return err
	}
	if s := get(EnvLogLevel); s != "" && c.LogLevel.UnmarshalText([]byte(s)) != nil {
		return fmt.Errorf("config: %s = %q: want debug, info, warn or error", EnvLogLevel, s)
	}
	return nil
}

// parseBool sets *v from s, the value of the variable name, unless s is empty.
func parseBool(name, s string, v *bool) error {
	if s == "" {
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("config: %s = %q: want true or false", name, s)
	}
	*v = b
	return nil
}

func (c *Config) parseRules(get func(string) string) error {
	s := get(EnvDefaultRules)
	if s == "" {
		return nil
	}
	var raws []json.RawMessage
	if err := json.NewDecoder(strings.NewReader(s)).Decode(&raws); err != nil {
		return fmt.Errorf("config: %s: want a JSON array of rules: %w", EnvDefaultRules, err)
	}
	rules := make([]limiter.Rule, len(raws))
	for i, raw := range raws {
		r, err := limiter.ParseRule(raw)
		if err != nil {
			return fmt.Errorf("config: %s: rules[%d]: %w", EnvDefaultRules, i, err)
		}
		rules[i] = r
	}
	if _, err := limiter.NewSet(rules, nil); err != nil {
		return fmt.Errorf("config: %s: %w", EnvDefaultRules, err)
	}
	c.DefaultRules = rules
	return nil
}

// parseHot reads the hot counters' knobs: a threshold in decisions per second (a
// positive integer) and a lease time (a duration from 1ms to 10s).
func (c *Config) parseHot(get func(string) string) error {
	if s := get(EnvHotThreshold); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("config: %s = %q: want a whole number of decisions per second, at least 1", EnvHotThreshold, s)
		}
		c.HotThreshold = n
	}
	d, err := duration(EnvHotLeaseTime, get(EnvHotLeaseTime))
	if err != nil {
		return err
	}
	if d != 0 && (d < time.Millisecond || d > 10*time.Second) {
		return fmt.Errorf("config: %s = %q: want a duration from 1ms to 10s", EnvHotLeaseTime, get(EnvHotLeaseTime))
	}
	c.HotLeaseTime = d
	if c.HotCounters == "on" && c.Backend == BackendMemory {
		return fmt.Errorf("config: %s = on: hot counters are for a shared store (%s=dynamodb, upstash or redis)", EnvHotCounters, EnvBackend)
	}
	return nil
}

// Hot reports whether the counter store is put behind pkg/hotcounter: by default with
// DynamoDB only (one item takes about 1,000 writes a second).
func (c Config) Hot() bool {
	return c.HotCounters == "on" || c.HotCounters == "" && c.Backend == BackendDynamoDB
}

// checkBackend checks that the backend has what it needs.
func (c *Config) checkBackend(func(string) string) error {
	var missing string
	switch {
	case c.Backend == BackendDynamoDB && c.TenantsFile == "" && c.TenantsTable == "":
		missing = EnvTenantsTable
	case c.Backend == BackendDynamoDB && c.CountersTable == "":
		missing = EnvCountersTable
	case c.Backend == BackendUpstash && c.UpstashURL == "":
		missing = EnvUpstashURL
	case c.Backend == BackendUpstash && c.UpstashToken == "" && c.UpstashSecretARN == "":
		missing = EnvUpstashToken + " or " + EnvUpstashSecretARN
	case c.Backend == BackendRedis && len(c.Redis.Addrs) == 0:
		missing = EnvRedisAddr
	default:
		return nil
	}
	return fmt.Errorf("config: %s is required with %s=%s", missing, EnvBackend, c.Backend)
}
