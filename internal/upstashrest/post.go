package upstashrest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// post sends one request and returns the status of its answer, with the body read
// into rb. name labels errors.
func (c *Client) post(ctx context.Context, path, name string, body []byte, rb *buffer) (int, error) {
	auth := c.auth.Load()
	status, tok, err := c.postHTTP(ctx, *auth, path, body, rb)
	if err == nil && status == http.StatusUnauthorized && c.renewToken(ctx, auth) {
		status, tok, err = c.postHTTP(ctx, *c.auth.Load(), path, body, rb)
	}
	if errors.Is(err, errReplyTooLarge) {
		return 0, malformed("%s: reply larger than %d bytes", name, c.maxReply)
	}
	if err != nil {
		return 0, fmt.Errorf("upstash: %s: %w", name, err)
	}
	c.keepSyncToken(tok)
	return status, nil
}

// postHTTP sends the request with net/http. The body is the request's own copy: body
// is a pooled buffer, and net/http may still read a failed request's body after Do
// returns. Being a bytes.Reader, it gives the request a GetBody, which net/http needs
// to send a request again when the connection it chose failed with nothing written.
func (c *Client) postHTTP(ctx context.Context, auth, path string, body []byte, rb *buffer) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(bytes.Clone(body)))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerEncoding, "base64")
	if !c.noSync {
		c.syncMu.Lock()
		if len(c.syncToken) > 0 {
			req.Header.Set(headerSyncToken, string(c.syncToken))
		}
		c.syncMu.Unlock()
	}
	c.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if rb.data, err = readBody(rb.data[:0], resp.Body, c.maxReply); err != nil {
		return 0, "", err
	}
	return resp.StatusCode, resp.Header.Get(headerSyncToken), nil
}

// keepSyncToken remembers tok, an answer's upstash-sync-token, to send it back.
func (c *Client) keepSyncToken(tok string) {
	if tok == "" || c.noSync || !printable(tok) {
		return
	}
	c.syncMu.Lock()
	c.syncToken = append(c.syncToken[:0], tok...)
	c.syncMu.Unlock()
}

// printable reports whether s holds only printable ASCII, safe to send in a header.
func printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' })
}

// errReplyTooLarge is readBody's answer to a body over its cap.
var errReplyTooLarge = errors.New("reply too large")

// readBody appends what r reads, to its end, to dst; a body of more than max bytes is
// errReplyTooLarge.
func readBody(dst []byte, r io.Reader, max int64) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	_, err := buf.ReadFrom(io.LimitReader(r, max+1))
	switch {
	case err != nil:
		return buf.Bytes(), fmt.Errorf("reading the reply body: %w", err)
	case int64(buf.Len()) > max:
		return buf.Bytes(), errReplyTooLarge
	}
	return buf.Bytes(), nil
}

// buffer is a byte slice reused through buffers: commands, requests, reply bodies.
type buffer struct{ data []byte }

// maxPooledBuffer is the largest buffer kept for reuse; larger ones go to the collector.
const maxPooledBuffer = 64 << 10

var buffers = sync.Pool{New: func() any { return &buffer{data: make([]byte, 0, 2048)} }}

func getBuffer() *buffer { return buffers.Get().(*buffer) }

func putBuffer(b *buffer) {
	if cap(b.data) <= maxPooledBuffer {
		b.data = b.data[:0]
		buffers.Put(b)
	}
}
