package buildcheck

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// notInAuthorizer are packages the authorizer's bootstrap must not link, each with why:
// they cost its size and its package init at every cold start, for work it does not do.
var notInAuthorizer = map[string]string{
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue": "marshals by reflection; the counters' writes take their values from pkg/store/dynamodb/internal/expr",
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression":     "the counters' expressions come from pkg/store/dynamodb/internal/expr",
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams":         "attributevalue links it; nothing reads a stream",
	"github.com/aws/aws-sdk-go-v2/config":                          "the functions take their AWS configuration from the environment (config.LambdaAWSConfig), not the SDK's default chain",
}

// otherBackends are the clients that each backend's authorizer must not link: the
// other backends' (internal/config's build tags). The Redis store shares the Upstash
// store's scripts through pkg/store/internal/luascript, which links neither store.
var otherBackends = map[string][]string{
	"edgelimit.dynamodb": {"github.com/redis/rueidis", "github.com/edgelimit/edgelimit/internal/upstashrest"},
	"edgelimit.upstash":  {"github.com/aws/aws-sdk-go-v2/service/dynamodb", "github.com/redis/rueidis"},
	"edgelimit.redis":    {"github.com/aws/aws-sdk-go-v2/service/dynamodb", "github.com/edgelimit/edgelimit/internal/upstashrest", "github.com/edgelimit/edgelimit/pkg/store/upstash"},
}

// Each authorizer, as its `make build-<LogicalId>` target builds it (linux/arm64, its
// tags), imports none of notInAuthorizer, nor another backend's client, nor any
// package under them.
func TestAuthorizerImports(t *testing.T) {
	for _, fn := range functions {
		if fn.pkg != authorizerPkg {
			continue
		}
		t.Run(fn.logicalID, func(t *testing.T) {
			deps := authorizerDeps(t, fn.tags)
			_, backend, _ := strings.Cut(fn.tags, ",")
			if len(otherBackends[backend]) == 0 {
				t.Fatalf("tags %q name no backend of otherBackends", fn.tags)
			}
			for _, dep := range deps {
				for pkg, why := range notInAuthorizer {
					if dep == pkg || strings.HasPrefix(dep, pkg+"/") {
						t.Errorf("the authorizer imports %s (%s)", dep, why)
					}
				}
				for _, pkg := range otherBackends[backend] {
					if dep == pkg || strings.HasPrefix(dep, pkg+"/") {
						t.Errorf("the authorizer built with %s imports %s, another backend's", backend, dep)
					}
				}
			}
		})
	}
}

// authorizerDeps lists the packages the authorizer links, built for linux/arm64 with tags.
func authorizerDeps(t *testing.T, tags string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", tags, "-deps", "./functions/authorizer")
	cmd.Dir = testenv.ModuleRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -tags %s -deps ./functions/authorizer: %v", tags, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages, want the authorizer's whole graph:\n%s", len(deps), out)
	}
	return deps
}

// An authorizer built with one backend refuses another at its cold start, with a
// message that names the variable and what the binary has, before it builds anything.
func TestAuthorizerRefusesABackendItWasBuiltWithout(t *testing.T) {
	requireTools(t)
	if testing.Short() {
		t.Skip("-short: skipping the builds")
	}
	for tag, other := range map[string]string{"edgelimit.dynamodb": "upstash", "edgelimit.upstash": "redis", "edgelimit.redis": "dynamodb"} {
		bootstrap := testenv.BuildBootstrap(t, authorizerPkg, tag)
		cmd := exec.Command(bootstrap)
		cmd.Env = []string{"EDGELIMIT_BACKEND=" + other, "AWS_LAMBDA_RUNTIME_API=127.0.0.1:1"}
		out, err := cmd.CombinedOutput()
		backend := strings.TrimPrefix(tag, "edgelimit.")
		want := `EDGELIMIT_BACKEND = "` + other + `": this binary was built without that backend (it has memory, ` + backend + ")"
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("built with %s, EDGELIMIT_BACKEND=%s: %v\n%s\nwant an error with %q", tag, other, err, out, want)
		}
	}
}
