package readme

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// section returns the README's section under the heading ("## " + title), up to the
// next one.
func section(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(string(data), "\n## "+title+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section", "## "+title)
	}
	s, _, _ = strings.Cut(s, "\n## ")
	return s
}

// shBlocks returns the ```sh blocks of text.
func shBlocks(text string) []string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, strings.TrimSpace(m[1]))
	}
	return blocks
}

// TestFirstDeploy reads the README's walkthrough from `sam deploy` to a 429: its
// prerequisites, the deploy, the outputs read as base URLs, and what `sam delete`
// leaves behind. Its admin and request lines then run against `edgelimit dev` as they
// would against the stack, the admin API behind a proxy that records what curl sends:
// a tenant and a key through SigV4-signed requests that carry the session token of
// temporary credentials, then five 200s and a 429.
func TestFirstDeploy(t *testing.T) {
	text := section(t, "First deploy")
	flat := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{"AWS SAM CLI", "Go (", "`make`", "credentials", "temporary credentials",
		"`sam delete`", "`DeletionPolicy: Retain`", "tenants table"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the First deploy section does not mention %q", want)
		}
	}
	blocks := shBlocks(text)
	if len(blocks) != 3 {
		t.Fatalf("the First deploy section has %d sh blocks, want 3 (deploy, outputs, requests): %q", len(blocks), blocks)
	}
	if blocks[0] != "sam build\nsam deploy --guided" {
		t.Errorf("the deploy block is %q, want sam build and sam deploy --guided", blocks[0])
	}
	for _, want := range []string{"output ApiUrl", "output AdminApiUrl", "aws configure export-credentials"} {
		if !strings.Contains(blocks[1], want) {
			t.Errorf("the outputs block does not hold %q: %s", want, blocks[1])
		}
	}
	addr, _ := startDev(t, []string{"dev"})
	admin, seen := recordingProxy(t, "http://"+addr+"/admin")
	cmd := exec.Command("bash", "-e", "-c", blocks[2])
	cmd.Env = append(os.Environ(), "API=http://"+addr, "ADMIN="+admin, "REGION=eu-west-1",
		"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret", "AWS_SESSION_TOKEN=the-session-token")
	out, err := cmd.Output()
	if got := strings.Fields(string(out)); err != nil || !slices.Equal(got, []string{"201", "200", "200", "200", "200", "200", "429"}) {
		t.Fatalf("the requests block printed %q (%v), want 201, five 200s and 429:\n%s", got, err, blocks[2])
	}
	if n := len(seen()); n != 2 {
		t.Fatalf("the admin API received %d requests, want 2 (the tenant, the key)", n)
	}
	checkSigned(t, seen()[:2], "the-session-token")
	// Long-term keys have no session token: the same function signs no token header.
	sigv4, _, _ := strings.Cut(blocks[2], "\n")
	cmd = exec.Command("bash", "-e", "-c", sigv4+"\nsigv4 -s -o /dev/null \"$ADMIN/tenants\"")
	cmd.Env = append(os.Environ(), "ADMIN="+admin, "REGION=eu-west-1",
		"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret", "AWS_SESSION_TOKEN=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", sigv4, err, out)
	}
	checkSigned(t, seen()[2:], "")
}

// recordingProxy serves target behind a local proxy and returns its URL and the
// requests it received.
func recordingProxy(t *testing.T, target string) (string, func() []*http.Request) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []*http.Request
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		mu.Lock()
		seen = append(seen, r.In.Clone(r.In.Context()))
		mu.Unlock()
		r.SetURL(u)
	}}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL, func() []*http.Request {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// checkSigned: each admin request was signed with SigV4 for execute-api in the region,
// on a path with no double slash, with the session token sent and signed (none when
// token is "").
func checkSigned(t *testing.T, reqs []*http.Request, token string) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("the admin API received no request")
	}
	sig := regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\d{8}/eu-west-1/execute-api/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$`)
	for _, r := range reqs {
		m := sig.FindStringSubmatch(r.Header.Get("Authorization"))
		if m == nil || slices.Contains(strings.Split(m[1], ";"), "x-amz-security-token") != (token != "") {
			t.Errorf("%s %s: Authorization %q, want SigV4 for execute-api, signing x-amz-security-token exactly when there is a session token (%q)",
				r.Method, r.URL.Path, r.Header.Get("Authorization"), token)
		}
		if got := r.Header.Get("X-Amz-Security-Token"); got != token {
			t.Errorf("%s %s: x-amz-security-token %q, want %q", r.Method, r.URL.Path, got, token)
		}
		if strings.Contains(r.URL.Path, "//") {
			t.Errorf("%s %s: a double slash in the path", r.Method, r.URL.Path)
		}
	}
}

// Every curl --aws-sigv4 line of the README and docs/ sends the session token, so that
// it works with temporary credentials.
func TestSigV4LinesSendTheSessionToken(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range append(files, "../../README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.Contains(line, "curl --aws-sigv4") {
				n++
				if !strings.Contains(line, `x-amz-security-token: $AWS_SESSION_TOKEN`) {
					t.Errorf("%s:%d: a --aws-sigv4 line without -H \"x-amz-security-token: $AWS_SESSION_TOKEN\": %s", f, i+1, line)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no curl --aws-sigv4 line in the README or docs/")
	}
}

// The README names every package under pkg/ (but those under an internal/ folder) in
// its table of who imports each, and says that everything else is internal/.
func TestPackagesNamed(t *testing.T) {
	text := section(t, "For Go users: the packages")
	var named []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(pkg/[a-z/]+)` \\| [^|]+ \\|$").FindAllStringSubmatch(text, -1) {
		named = append(named, m[1])
	}
	var want []string
	err := filepath.WalkDir("../../pkg", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		dir := filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "../../"))
		if !strings.Contains(dir, "/internal/") && !slices.Contains(want, dir) {
			want = append(want, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(named)
	slices.Sort(want)
	if !slices.Equal(named, want) {
		t.Errorf("the README's package table names %v, want the packages under pkg/: %v", named, want)
	}
	if !strings.Contains(text, "everything else is\nunder `internal/`") && !strings.Contains(strings.Join(strings.Fields(text), " "), "everything else is under `internal/`") {
		t.Error("the package section does not say that everything else is under internal/")
	}
}
