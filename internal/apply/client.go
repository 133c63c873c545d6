package apply

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// maxResponseBytes bounds an admin API answer that a Client reads.
const maxResponseBytes = 8 << 20

// Client calls an admin API at a base URL: unsigned over http (edgelimit dev), signed
// with SigV4 over https (a deployed admin API). Create it with NewClient.
type Client struct {
	base   string // the base URL without a trailing slash
	http   *http.Client
	creds  aws.CredentialsProvider // nil: unsigned
	region string
	now    func() time.Time
}

// Options configures NewClient. The zero value means the defaults written beside each
// field.
type Options struct {
	// HTTPClient sends the requests; nil means a client with a 30 s timeout.
	HTTPClient *http.Client
	// AWSConfig loads the credentials and region that sign an https URL; nil means
	// unsigned requests even over https (tests).
	AWSConfig func(context.Context) (aws.Config, error)
}

// ErrBaseURL is wrapped by NewClient's error for a URL that is not an admin API's base.
var ErrBaseURL = errors.New("want the admin API's base URL, such as http://127.0.0.1:3000/admin or an https://...execute-api... AdminApiUrl")

// NewClient checks the base URL and, for https, loads the AWS configuration that signs
// the requests. A plain http URL without a path is edgelimit dev's: /admin is added.
func NewClient(ctx context.Context, base string, opts Options) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("%q: %w", base, ErrBaseURL)
	}
	if u.Scheme == "http" && strings.Trim(u.Path, "/") == "" {
		u.Path = "/admin"
	}
	c := &Client{base: strings.TrimRight(u.String(), "/"), http: opts.HTTPClient, now: time.Now}
	if c.http == nil {
		c.http = &http.Client{Timeout: 30 * time.Second}
	}
	if u.Scheme == "https" && opts.AWSConfig != nil {
		cfg, err := opts.AWSConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("AWS configuration for SigV4: %w", err)
		}
		c.creds, c.region = cfg.Credentials, regionOf(u.Hostname(), cfg.Region)
		if c.creds == nil || c.region == "" {
			return nil, fmt.Errorf("%s: signing needs AWS credentials and a region (AWS_REGION), and found %s", base, missing(c.creds == nil, c.region == ""))
		}
	}
	return c, nil
}

func missing(creds, region bool) string {
	switch {
	case creds && region:
		return "neither"
	case creds:
		return "no credentials"
	}
	return "no region"
}

// regionOf is the region of an API Gateway host ({api}.execute-api.{region}.amazonaws.com),
// or def for another host.
func regionOf(host, def string) string {
	parts := strings.Split(host, ".")
	if len(parts) >= 5 && parts[1] == "execute-api" && parts[3] == "amazonaws" {
		return parts[2]
	}
	return def
}

// response is an admin API answer.
type response struct {
	status int
	etag   string
	body   []byte
}

// do sends one request (body as JSON when not nil, If-Match when ifMatch is set) and
// reads the answer, whatever its status.
func (c *Client) do(ctx context.Context, method, path string, body []byte, ifMatch string) (response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return response{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	if err := c.sign(ctx, req, body); err != nil {
		return response{}, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return response{}, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return response{status: resp.StatusCode, etag: resp.Header.Get("ETag"), body: data}, nil
}

// sign adds SigV4's headers for execute-api when the client signs: X-Amz-Date,
// Authorization and, with temporary credentials, X-Amz-Security-Token.
func (c *Client) sign(ctx context.Context, req *http.Request, body []byte) error {
	if c.creds == nil {
		return nil
	}
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("AWS credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "execute-api", c.region, c.now()); err != nil {
		return fmt.Errorf("SigV4: %w", err)
	}
	return nil
}

// problem is the part of an RFC 9457 problem that errors quote.
type problem struct {
	Type   string `json:"type"`
	Detail string `json:"detail"`
	Field  string `json:"field"`
}

// apiError describes an answer that is not the one expected.
func apiError(method, path string, r response) error {
	var p problem
	_ = json.Unmarshal(r.body, &p)
	msg := fmt.Sprintf("%s %s: %d %s", method, path, r.status, http.StatusText(r.status))
	if p.Field != "" {
		msg += ": " + p.Field
	}
	if p.Detail != "" {
		msg += ": " + p.Detail
	}
	return &StatusError{Status: r.status, msg: msg}
}

// StatusError is an admin API answer with an unexpected status.
type StatusError struct {
	Status int
	msg    string
}

// Error is the method, path, status and the problem's field and detail.
func (e *StatusError) Error() string { return e.msg }
