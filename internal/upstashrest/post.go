package upstashrest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// post sends v, encoded as JSON, in one request and returns the status and body of
// its answer. name labels errors.
func (c *Client) post(ctx context.Context, path, name string, v any) (int, []byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return 0, nil, fmt.Errorf("upstash: %s: %w", name, err)
	}
	auth := c.auth.Load()
	status, reply, tok, err := c.postHTTP(ctx, *auth, path, body)
	if err == nil && status == http.StatusUnauthorized && c.renewToken(ctx, auth) {
		status, reply, tok, err = c.postHTTP(ctx, *c.auth.Load(), path, body)
	}
	if errors.Is(err, errReplyTooLarge) {
		return 0, nil, malformed("%s: reply larger than %d bytes", name, c.maxReply)
	}
	if err != nil {
		return 0, nil, fmt.Errorf("upstash: %s: %w", name, err)
	}
	c.keepSyncToken(tok)
	return status, reply, nil
}

// postHTTP sends the request with net/http and returns the status, body and sync token
// of its answer. The body, a bytes.Reader, gives the request a GetBody, which net/http
// needs to send a request again when the connection it chose failed with nothing
// written.
func (c *Client) postHTTP(ctx context.Context, auth, path string, body []byte) (int, []byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerEncoding, "base64")
	if tok := c.syncToken.Load(); tok != nil && !c.noSync {
		req.Header.Set(headerSyncToken, *tok)
	}
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	reply, err := readBody(resp.Body, c.maxReply)
	if err != nil {
		return 0, nil, "", err
	}
	return resp.StatusCode, reply, resp.Header.Get(headerSyncToken), nil
}

// keepSyncToken remembers tok, an answer's upstash-sync-token, to send it back when it
// holds only printable ASCII, safe to send in a header.
func (c *Client) keepSyncToken(tok string) {
	if tok == "" || c.noSync || strings.ContainsFunc(tok, func(r rune) bool { return r < ' ' || r > '~' }) {
		return
	}
	c.syncToken.Store(&tok)
}

// errReplyTooLarge is readBody's answer to a body over its cap.
var errReplyTooLarge = errors.New("reply too large")

// readBody reads r to its end; a body of more than max bytes is errReplyTooLarge.
func readBody(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading the reply body: %w", err)
	case int64(len(b)) > max:
		return nil, errReplyTooLarge
	}
	return b, nil
}
