package testenv

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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
	s.Addr = freeAddr(tb)
	_, port, _ := net.SplitHostPort(s.Addr)
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

// ping sends PING (after AUTH, with a password) on a new connection.
func (s *RedisServer) ping() error {
	opt := &redis.Options{Addr: s.Addr, Password: s.Password, MaxRetries: -1, DisableIdentity: true,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second}
	if s.TLS != nil {
		opt.TLSConfig = &tls.Config{RootCAs: s.TLS.Pool(s.tb), ServerName: "127.0.0.1"}
	}
	c := redis.NewClient(opt)
	defer c.Close()
	return c.Ping(context.Background()).Err()
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
