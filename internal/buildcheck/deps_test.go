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

// The authorizer, as `make build-AuthorizerFunction` builds it (linux/arm64, -tags
// lambda.norpc), imports none of notInAuthorizer, nor any package under them.
func TestAuthorizerImports(t *testing.T) {
	root := testenv.ModuleRoot(t)
	cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", "./functions/authorizer")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./functions/authorizer: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps listed %d packages, want the authorizer's whole graph:\n%s", len(deps), out)
	}
	for _, dep := range deps {
		for pkg, why := range notInAuthorizer {
			if dep == pkg || strings.HasPrefix(dep, pkg+"/") {
				t.Errorf("the authorizer imports %s (%s)", dep, why)
			}
		}
	}
}
