package buildcheck

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// maxSizeRatio bounds each authorizer's bootstrap against the hello-world's: the
// project's goal, "at most 1.6x". One bootstrap for every backend was 1.539 times the
// hello-world's at best (the AWS SDK's DynamoDB client and rueidis in every build);
// built once per backend, the DynamoDB one was 1.427, the Redis one 1.258 and the
// Upstash one 1.146, with an 83 kB compressed zone database that Go's own (408 kB
// of zone files, which every zone is now loaded from) replaced.
const maxSizeRatio = 1.6

// Each authorizer's bootstrap, as its `make build-<LogicalId>` target leaves it, is at
// most maxSizeRatio times the hello-world authorizer's (internal/authorizer/testdata/hello)
// built the same way for linux/arm64. Sizes are deterministic: a test, where the cold
// start's timings are a benchmark (functions/authorizer BenchmarkColdStart). It was 1.85
// times before the functions took their AWS configuration from the environment alone
// (config.LambdaAWSConfig) instead of the SDK's default chain.
func TestBootstrapSizeAgainstHello(t *testing.T) {
	root := testenv.ModuleRoot(t)
	requireTools(t)
	if testing.Short() {
		t.Skip("-short: skipping the Lambda builds")
	}
	dir := t.TempDir()
	hello := filepath.Join(dir, "hello")
	cmd := exec.Command("go", "build", "-tags", "lambda.norpc", "-ldflags", "-s -w", "-trimpath", "-o", hello, "./internal/authorizer/testdata/hello")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build hello: %v\n%s", err, out)
	}
	checkELF(t, hello, elf.EM_AARCH64)
	checkBuildInfo(t, hello, "github.com/edgelimit/edgelimit/internal/authorizer/testdata/hello", "lambda.norpc", "arm64")
	h := size(t, hello)
	for _, fn := range functions {
		if fn.pkg != authorizerPkg {
			continue
		}
		out := filepath.Join(dir, fn.logicalID)
		if out, err := runMake(root, nil, "build-"+fn.logicalID, "ARTIFACTS_DIR="+out); err != nil {
			t.Fatalf("make build-%s: %v\n%s", fn.logicalID, err, out)
		}
		authz := size(t, filepath.Join(out, "bootstrap"))
		ratio := float64(authz) / float64(h)
		t.Logf("%s: bootstrap %d bytes, hello-world %d bytes: %.3f times", fn.logicalID, authz, h, ratio)
		if ratio > maxSizeRatio {
			t.Errorf("%s: the bootstrap is %.3f times the hello-world's (%d / %d bytes), want at most %.2f", fn.logicalID, ratio, authz, h, maxSizeRatio)
		}
	}
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
