package redis

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recorder records every byte the client writes on its connections, and reads them
// back as the RESP commands they are.
type recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// dial is a Config.Dial whose connections the recorder sees.
func (r *recorder) dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &recordedConn{Conn: conn, r: r}, nil
}

type recordedConn struct {
	net.Conn
	r *recorder
}

func (c *recordedConn) Write(p []byte) (int, error) {
	c.r.mu.Lock()
	c.r.buf.Write(p)
	c.r.mu.Unlock()
	return c.Conn.Write(p)
}

// housekeeping are the commands a client sends on its own: a connection's handshake,
// keep-alive pings and a cluster's topology reads. Round trips count the others.
var housekeeping = map[string]bool{"HELLO": true, "AUTH": true, "CLIENT": true, "PING": true, "CLUSTER": true, "READONLY": true}

// take returns the names of the commands written since the last call, housekeeping
// left out, and forgets them.
func (r *recorder) take(t *testing.T) []string {
	t.Helper()
	r.mu.Lock()
	data := r.buf.String()
	r.buf.Reset()
	r.mu.Unlock()
	var names []string
	for data != "" {
		name, rest, ok := readCommand(data)
		if !ok {
			t.Fatalf("the client wrote something that is not a RESP command: %q", data[:min(len(data), 80)])
		}
		if !housekeeping[strings.ToUpper(name)] {
			names = append(names, strings.ToUpper(name))
		}
		data = rest
	}
	return names
}

// readCommand reads one RESP array of bulk strings (*N\r\n then N times $L\r\n...\r\n)
// and returns its first element.
func readCommand(s string) (name, rest string, ok bool) {
	n, s, ok := readLength(s, '*')
	for i := 0; ok && i < n; i++ {
		var l int
		if l, s, ok = readLength(s, '$'); !ok || len(s) < l+2 || s[l:l+2] != "\r\n" {
			return "", "", false
		}
		if i == 0 {
			name = s[:l]
		}
		s = s[l+2:]
	}
	return name, s, ok && n > 0
}

func readLength(s string, kind byte) (int, string, bool) {
	line, rest, ok := strings.Cut(s, "\r\n")
	if !ok || len(line) < 2 || line[0] != kind {
		return 0, "", false
	}
	n, err := strconv.Atoi(line[1:])
	return n, rest, err == nil && n >= 0
}
