package config

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// maxSecretBytes bounds the Secrets Manager reply read.
const maxSecretBytes = 1 << 20

// readSecret reads the token in secret arn, named by the variable name, from Secrets
// Manager: one GetSecretValue call, signed with SigV4 (the AWS JSON 1.1 protocol, which
// needs no service SDK).
func (c Config) readSecret(ctx context.Context, opts Options, name, arn string) (string, error) {
	awsCfg, err := c.awsConfig(ctx, opts)
	if err != nil {
		return "", err
	}
	endpoint := cmp.Or(c.SecretsEndpoint, "https://secretsmanager."+awsCfg.Region+".amazonaws.com")
	body, _ := json.Marshal(map[string]string{"SecretId": arn})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(endpoint, "/")+"/", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("config: %s: endpoint %q: %w", name, endpoint, err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "secretsmanager.GetSecretValue")
	creds, err := awsCfg.Credentials.Retrieve(ctx)
	if err != nil {
		return "", fmt.Errorf("config: %s: AWS credentials: %w", name, err)
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "secretsmanager", awsCfg.Region, time.Now()); err != nil {
		return "", fmt.Errorf("config: %s: sign: %w", name, err)
	}
	do := http.DefaultClient.Do
	switch {
	case opts.HTTPClient != nil:
		do = opts.HTTPClient.Do
	case awsCfg.HTTPClient != nil: // the SDK's, with the environment's CA bundle
		do = awsCfg.HTTPClient.Do
	}
	return sendSecretRequest(do, req, name)
}

func sendSecretRequest(do func(*http.Request) (*http.Response, error), req *http.Request, name string) (string, error) {
	resp, err := do(req)
	if err != nil {
		return "", fmt.Errorf("config: %s: GetSecretValue: %w", name, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSecretBytes))
	if err != nil {
		return "", fmt.Errorf("config: %s: GetSecretValue: %w", name, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(data, &e)
		return "", fmt.Errorf("config: %s: GetSecretValue: %s %s %s", name, resp.Status, e.Type, e.Message)
	}
	var out struct {
		SecretString string `json:"SecretString"`
	}
	if err := json.Unmarshal(data, &out); err != nil || strings.TrimSpace(out.SecretString) == "" {
		return "", fmt.Errorf("config: %s: GetSecretValue returned no SecretString (the secret must hold the token as text)", name)
	}
	return strings.TrimSpace(out.SecretString), nil
}
