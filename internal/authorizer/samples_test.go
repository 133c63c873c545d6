package authorizer_test

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/authorizer"
)

// authorizerSamples are the sample events of aws-lambda-go that API Gateway sends a
// Lambda authorizer: REST TOKEN and REQUEST, and the HTTP API's payloads 1.0 and 2.0.
var authorizerSamples = map[string]bool{
	"apigw-custom-auth-request.json":              true,
	"apigw-custom-auth-request-type-request.json": true,
	"apigw-v2-custom-authorizer-v1-request.json":  true,
	"apigw-v2-custom-authorizer-v2-request.json":  true,
}

// lambdaSamples returns the sample events of the aws-lambda-go this module requires.
func lambdaSamples(t *testing.T) []string {
	t.Helper()
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/aws/aws-lambda-go").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(dir)), "events", "testdata", "*.json"))
	if err != nil || len(files) < 100 {
		t.Fatalf("%d sample events (%v), want at least 100", len(files), err)
	}
	return files
}

// Every one of aws-lambda-go's sample events goes through the function's entry point,
// in both HTTP API response modes: those an authorizer can reach are served (an answer,
// or Unauthorized: their keys are no tenant's), none refused as an unknown kind; every
// other is refused with an error that says so, never answered.
func TestLambdaSampleEvents(t *testing.T) {
	served := 0
	for _, file := range lambdaSamples(t) {
		name := filepath.Base(file)
		payload := readFile(t, file)
		for _, mode := range []authorizer.HTTPResponse{authorizer.SimpleResponse, authorizer.IAMResponse} {
			out, err := newHarness(t, mode, nil).invoke(t, payload)
			switch {
			case authorizerSamples[name] && err != nil && !errors.Is(err, authorizer.ErrUnauthorized):
				t.Errorf("%s (%s): refused: %v", name, mode, err)
			case authorizerSamples[name]:
				served++
			case err == nil || !strings.HasPrefix(err.Error(), "authorizer: "):
				t.Errorf("%s (%s), not an authorizer event: %s, %v", name, mode, out, err)
			}
		}
	}
	if served != 2*len(authorizerSamples) {
		t.Errorf("%d of the authorizer samples served, want %d", served, 2*len(authorizerSamples))
	}
}
