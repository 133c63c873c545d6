package apply_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/edgelimit/edgelimit/internal/apply"
	"github.com/edgelimit/edgelimit/internal/config/awsdefault"
)

// authorization is the shape of a SigV4 Authorization header for execute-api in
// eu-west-3, signed with the access key of awsEnv.
var authorization = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=AKIDAPPLYTEST/\d{8}/eu-west-3/execute-api/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$`)

// awsEnv gives the SDK's default chain static credentials from the environment, and
// no file, profile or instance metadata to read.
func awsEnv(t *testing.T, token string) aws.Credentials {
	dir := t.TempDir()
	for name, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKIDAPPLYTEST", "AWS_SECRET_ACCESS_KEY": "secret/apply/test", "AWS_SESSION_TOKEN": token,
		"AWS_REGION": "eu-west-3", "AWS_PROFILE": "", "AWS_CONFIG_FILE": filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"), "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(name, v)
	}
	return aws.Credentials{AccessKeyID: "AKIDAPPLYTEST", SecretAccessKey: "secret/apply/test", SessionToken: token}
}

// TestSigV4: over https, every request (reads and the PUT with its body) carries a
// SigV4 Authorization for execute-api that the server recomputes from what it
// received, and x-amz-security-token exactly when the credentials have a session token.
func TestSigV4(t *testing.T) {
	for _, token := range []string{"session-token-1", ""} {
		t.Run("token="+token, func(t *testing.T) {
			creds := awsEnv(t, token)
			var mu sync.Mutex
			var problems []string
			var seen int
			srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				seen++
				if p := checkSignature(r, creds); p != "" {
					problems = append(problems, r.Method+" "+r.URL.Path+": "+p)
				}
				switch {
				case r.Method == http.MethodGet && r.URL.Path == "/v1/tenants":
					io.WriteString(w, `{"tenants": [], "next_page_token": null}`)
				case r.Method == http.MethodPut:
					w.WriteHeader(http.StatusCreated)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			c, err := apply.NewClient(context.Background(), srv.URL+"/v1", apply.Options{HTTPClient: srv.Client(), AWSConfig: awsdefault.Load})
			if err != nil {
				t.Fatal(err)
			}
			want, err := apply.Parse("x.yaml", []byte("tenants: [{id: acme, rules: ["+rule+"]}]"))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := apply.Run(context.Background(), c, want, false, false, &out); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			if seen != 3 || len(problems) > 0 { // GET /plans, GET /tenants, PUT /tenants/acme
				t.Errorf("%d requests (want 3), problems: %q", seen, problems)
			}
		})
	}
}

// checkSignature describes what is wrong with r's signature, or returns "".
func checkSignature(r *http.Request, creds aws.Credentials) string {
	auth := r.Header.Get("Authorization")
	m := authorization.FindStringSubmatch(auth)
	if m == nil {
		return "Authorization " + auth + " is not SigV4 for execute-api in eu-west-3"
	}
	signed := strings.Split(m[1], ";")
	hasToken := strings.Contains(";"+m[1]+";", ";x-amz-security-token;")
	if got := r.Header.Get("X-Amz-Security-Token"); got != creds.SessionToken || hasToken != (creds.SessionToken != "") {
		return "x-amz-security-token " + got + " (signed: " + m[1] + "), want " + creds.SessionToken
	}
	body, _ := io.ReadAll(r.Body)
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return "X-Amz-Date: " + err.Error()
	}
	again, _ := http.NewRequest(r.Method, "https://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	for _, h := range signed {
		if h != "host" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	again.Header.Del("Authorization")
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "execute-api", "eu-west-3", at); err != nil {
		return err.Error()
	}
	if again.Header.Get("Authorization") != auth {
		return "the signature does not match the request received"
	}
	return ""
}
