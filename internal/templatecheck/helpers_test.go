package templatecheck

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// The template's logical ids and names that the tests pin (template.yaml).
const (
	authorizerFunction = "AuthorizerFunction"
	adminFunction      = "AdminFunction"
	tenantsTable       = "TenantsTable"
	countersTable      = "CountersTable"
	tokenSecretParam   = "UpstashTokenSecretArn"
	tokenKeyParam      = "UpstashTokenKmsKeyArn"
	redisSecretParam   = "RedisAuthTokenSecretArn"
	redisKeyParam      = "RedisAuthTokenKmsKeyArn"
	reservationSecret  = "ReservationSecret"
	logRetentionParam  = "LogRetentionDays"
	dynamoCondition    = "UseDynamoDB"
	redisVpcCondition  = "UseRedisVpc"
	apiKeyHeader       = "x-api-key"
)

// authorizers are the authorizer function of each Backend, created under its condition
// and built with that backend alone.
var authorizers = map[string]string{
	"dynamodb": authorizerFunction, "upstash": "AuthorizerUpstashFunction", "redis": "AuthorizerRedisFunction",
}

// backendOf returns the Backend whose authorizer is the function id, or "".
func backendOf(id string) string {
	for b, fn := range authorizers {
		if fn == id {
			return b
		}
	}
	return ""
}

// parsed caches loadFile's templates: path -> func() (map[string]any, error).
var parsed sync.Map

// load returns the parsed template.yaml, read once per test binary.
func load(t testing.TB) map[string]any {
	t.Helper()
	return loadFile(t, filepath.Join(testenv.ModuleRoot(t), "template.yaml"))
}

// loadFile returns the template at path parsed with ParseFile, read once per test
// binary: the checks that take a template take any template this way.
func loadFile(t testing.TB, path string) map[string]any {
	t.Helper()
	f, _ := parsed.LoadOrStore(path, sync.OnceValues(func() (map[string]any, error) { return ParseFile(path) }))
	tmpl, err := f.(func() (map[string]any, error))()
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// resource is one entry of the template's Resources.
type resource struct {
	ID         string
	Type       string
	Condition  string
	Properties map[string]any
	Metadata   map[string]any
}

// resources returns the template's resources of type typ ("" for all), by logical id.
func resources(t testing.TB, tmpl map[string]any, typ string) []resource {
	t.Helper()
	var out []resource
	for _, id := range sortedKeys(asMap(tmpl["Resources"])) {
		r := asMap(asMap(tmpl["Resources"])[id])
		res := resource{ID: id, Type: asString(r["Type"]), Condition: asString(r["Condition"]),
			Properties: asMap(r["Properties"]), Metadata: asMap(r["Metadata"])}
		if typ == "" || res.Type == typ {
			out = append(out, res)
		}
	}
	return out
}

// mustResource returns the resource id, which must exist with type typ.
func mustResource(t testing.TB, tmpl map[string]any, id, typ string) resource {
	t.Helper()
	for _, r := range resources(t, tmpl, typ) {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("template.yaml has no %s resource %s", typ, id)
	return resource{}
}
