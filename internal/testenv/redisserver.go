package testenv

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RedisServer is a redis-server of the test's own, on a free loopback port, for what
// the shared one cannot be put through: TLS, a password, being stopped mid-test. It is
// stopped at the end of the test.
type RedisServer struct {
	tb   testing.TB
	args []string
	Addr string // 127.0.0.1:PORT
	TLS  *TLSFiles
	// Password is the server's requirepass, "" for none.
	Password string
	cmd      *exec.Cmd
	log      *Buffer
}

// RedisServerConfig says how to start a RedisServer.
type RedisServerConfig struct {
	TLS      bool   // listen with TLS only (a throwaway CA's certificate, RedisServer.TLS)
	Password string // requirepass
}

// StartRedisServer starts a redis-server (the one on PATH, which `make test` installs)
// and waits until it answers. The test is skipped without the test services (fails
// under CI), as other integration tests are.
func StartRedisServer(tb testing.TB, cfg RedisServerConfig) *RedisServer {
	tb.Helper()
	RedisAddr(tb) // the services are up: redis-server is installed
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		tb.Fatalf("redis-server is not on PATH: %v", err)
	}
	s := &RedisServer{tb: tb, Password: cfg.Password, log: &Buffer{}}
	s.Addr = "127.0.0.1:" + freePort(tb)
	port := s.Addr[strings.LastIndex(s.Addr, ":")+1:]
	s.args = []string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tb.TempDir()}
	if cfg.TLS {
		s.TLS = NewTLSFiles(tb, "127.0.0.1", "localhost")
		s.args = append(s.args, "--port", "0", "--tls-port", port, "--tls-cert-file", s.TLS.Cert,
			"--tls-key-file", s.TLS.Key, "--tls-ca-cert-file", s.TLS.CA, "--tls-auth-clients", "no")
	} else {
		s.args = append(s.args, "--port", port)
	}
	if cfg.Password != "" {
		s.args = append(s.args, "--requirepass", cfg.Password)
	}
	s.args = append([]string{bin}, s.args...)
	tb.Cleanup(s.Stop)
	s.Start()
	return s
}

// freePort returns a loopback port nothing listened on a moment ago.
func freePort(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// Start starts the server (again, after Stop, on the same port) and waits until it
// answers PING.
func (s *RedisServer) Start() {
	s.tb.Helper()
	s.cmd = exec.Command(s.args[0], s.args[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.ping()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("redis-server %s does not answer: %v\n%s", s.Addr, err, s.log.String())
		}
		time.Sleep(20 * time.Millisecond) // polling a process we started, not a test's clock
	}
}

// Stop stops the server (SIGKILL: no clean shutdown, as a crash) and waits for it.
func (s *RedisServer) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// ping sends AUTH (with a password) and PING on a new connection.
func (s *RedisServer) ping() error {
	conn, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if s.TLS != nil {
		conn = tls.Client(conn, &tls.Config{RootCAs: s.TLS.Pool(s.tb), ServerName: "127.0.0.1"})
	}
	cmds := "PING\r\n"
	if s.Password != "" {
		cmds = "AUTH " + s.Password + "\r\n" + cmds
	}
	if _, err := io.WriteString(conn, cmds); err != nil {
		return err
	}
	r := bufio.NewReader(conn)
	for range strings.Count(cmds, "\r\n") {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if !strings.HasPrefix(line, "+") {
			return fmt.Errorf("reply %q", line)
		}
	}
	return nil
}

// TLSFiles are a throwaway CA and a server certificate it signed, as PEM files.
type TLSFiles struct {
	CA, Cert, Key string // paths
}

// NewTLSFiles writes a new CA and a certificate for hosts (names or IP addresses),
// valid for a day, into the test's temporary folder.
func NewTLSFiles(tb testing.TB, hosts ...string) *TLSFiles {
	tb.Helper()
	caPEM, certPEM, keyPEM, err := newCertificates(hosts)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	f := &TLSFiles{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server.key")}
	for path, data := range map[string][]byte{f.CA: caPEM, f.Cert: certPEM, f.Key: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return f
}

// Pool returns a certificate pool holding the CA.
func (f *TLSFiles) Pool(tb testing.TB) *x509.CertPool {
	data, err := os.ReadFile(f.CA)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(data)
	return pool
}
