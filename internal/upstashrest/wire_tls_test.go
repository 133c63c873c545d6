package upstashrest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"
)

// testCert returns a self-signed certificate for the DNS name host (and no IP), and
// the pool of roots that trusts it.
func testCert(t *testing.T, host string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: host},
		DNSNames:              []string{host},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}

// tlsClient returns a Client of https://host:port whose transport dials addr (the
// server, on 127.0.0.1) and trusts roots.
func tlsClient(t *testing.T, host, addr string, roots *x509.CertPool) *Client {
	t.Helper()
	_, port, _ := net.SplitHostPort(addr)
	c := wireClient(t, "https://"+net.JoinHostPort(host, port), nil)
	c.lean.addr = addr
	c.lean.tls.RootCAs = roots
	return c
}

// The certificate is checked against the URL's host name, not the address dialled: a
// server whose certificate names upstash.test is trusted as upstash.test, and refused,
// with an x509 error, as another name.
func TestTLSServerNameIsVerified(t *testing.T) {
	cert, roots := testCert(t, "upstash.test")
	s := newUnstartedWireServer(t, okReply)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake
	s.StartTLS()
	addr := s.Listener.Addr().String()

	ping(t, tlsClient(t, "upstash.test", addr, roots))

	_, err := tlsClient(t, "other.test", addr, roots).Do(wireCtx(t), "PING")
	var he x509.HostnameError
	if !errors.As(err, &he) || he.Host != "other.test" {
		t.Errorf("err = %v, want an x509.HostnameError for other.test", err)
	}
}

// holdConn is a server's TCP connection whose writes, while hold is set, wait in out,
// to leave together in one write on flush.
type holdConn struct {
	net.Conn
	hold bool
	out  []byte
}

func (h *holdConn) Write(p []byte) (int, error) {
	if h.hold {
		h.out = append(h.out, p...)
		return len(p), nil
	}
	return h.Conn.Write(p)
}

// flush writes what waits, with no deadline: tls.Conn.CloseWrite sets one in the past.
func (h *holdConn) flush() error {
	h.hold = false
	if err := h.Conn.SetWriteDeadline(time.Time{}); err != nil {
		return err
	}
	_, err := h.Conn.Write(h.out)
	return err
}

// pollutingTLSServer answers the requests of every connection with {"result":1}; on
// the first connection, pollute writes more TLS after the first answer, sent in the
// same TCP write so that the client's tls.Conn takes it off the socket with the
// answer. The connection then stays open.
func pollutingTLSServer(t *testing.T, cert tls.Certificate, pollute func(*tls.Conn) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	const answer = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{\"result\":1}"
	serve := func(conn net.Conn, first bool) {
		defer wg.Done()
		defer conn.Close()
		hc := &holdConn{Conn: conn}
		tc := tls.Server(hc, cfg)
		br := bufio.NewReader(tc)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			hc.hold = first
			if _, err := io.WriteString(tc, answer); err != nil {
				return
			}
			if first {
				if pollute(tc) != nil || hc.flush() != nil {
					return
				}
				io.Copy(io.Discard, conn) // until the client closes it
				return
			}
		}
	}
	go func() {
		for first := true; ; first = false {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			wg.Add(1)
			go serve(conn, first)
		}
	}()
	return ln.Addr().String()
}

// An idle TLS connection whose tls.Conn has already taken, with the last answer, a
// close_notify alert or a stray record off the socket (which a peek at the socket
// cannot see) is not reused: the next request goes on a new connection and succeeds.
func TestPollutedTLSConnectionIsNotReused(t *testing.T) {
	cert, roots := testCert(t, "upstash.test")
	for _, tc := range []struct {
		name    string
		pollute func(*tls.Conn) error
	}{
		{"close_notify", (*tls.Conn).CloseWrite},
		{"stray answer", func(c *tls.Conn) error {
			_, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n{\"result\":99}")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tlsClient(t, "upstash.test", pollutingTLSServer(t, cert, tc.pollute), roots)
			ping(t, c)
			if len(c.lean.idle) != 1 {
				t.Fatalf("%d idle connections after the first answer, want 1", len(c.lean.idle))
			}
			ping(t, c)
			if c.Requests() != 2 {
				t.Errorf("the client counted %d requests, want 2", c.Requests())
			}
		})
	}
}

// idleConn returns a connection that has carried one request, taken from its pool.
func idleConn(tb testing.TB, useTLS bool) *pconn {
	tb.Helper()
	s := newWireServer(tb, useTLS, okReply)
	c, err := NewClient(Config{URL: s.URL, Token: "t"})
	if err != nil {
		tb.Fatal(err)
	}
	u, _ := url.Parse(s.URL)
	c.lean = newTransport(u)
	if useTLS {
		c.lean.tls.RootCAs = s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	}
	if _, err := c.Do(tb.Context(), "PING"); err != nil {
		tb.Fatal(err)
	}
	pc := c.lean.takeIdle()
	if pc == nil {
		tb.Fatal("no idle connection")
	}
	tb.Cleanup(pc.close)
	return pc
}

// The check before reuse allocates nothing over http, and over https two objects: the
// read's *net.OpError for the deadline passed, and crypto/tls's atLeastReader.
func TestAliveAllocations(t *testing.T) {
	for _, tc := range []struct {
		useTLS bool
		want   float64
	}{{false, 0}, {true, 2}} {
		pc := idleConn(t, tc.useTLS)
		if n := testing.AllocsPerRun(100, func() {
			if !pc.alive() {
				t.Fatal("a healthy idle connection is not alive")
			}
		}); n > tc.want {
			t.Errorf("TLS %v: alive makes %v allocations, want at most %v", tc.useTLS, n, tc.want)
		}
	}
}

// BenchmarkAlive measures the check before reuse of an idle connection, http and
// https.
func BenchmarkAlive(b *testing.B) {
	for _, useTLS := range []bool{false, true} {
		b.Run(map[bool]string{false: "http", true: "https"}[useTLS], func(b *testing.B) {
			pc := idleConn(b, useTLS)
			b.ReportAllocs()
			for b.Loop() {
				if !pc.alive() {
					b.Fatal("not alive")
				}
			}
		})
	}
}
