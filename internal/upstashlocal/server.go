package upstashlocal

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultMaxBodyBytes is the request body cap when Config.MaxBodyBytes is zero.
const DefaultMaxBodyBytes = 1 << 20

// Config configures a Server. RedisAddr and Token are required.
type Config struct {
	RedisAddr    string // host:port of the Redis server to front
	Token        string // the bearer token clients must send
	MaxBodyBytes int64  // request body cap, answered with 413; 0 means DefaultMaxBodyBytes
}

// Server is an http.Handler that answers the Upstash REST API with a Redis
// server's replies. Create it with New and Close it when done.
type Server struct {
	rdb     *redis.Client
	token   []byte
	maxBody int64
	scripts scriptNames
	sync    atomic.Uint64 // the last upstash-sync-token sent
}

// New returns a Server for cfg. It does not connect: see Ping.
func New(cfg Config) (*Server, error) {
	if cfg.RedisAddr == "" {
		return nil, errors.New("upstashlocal: no Redis address")
	}
	if cfg.Token == "" {
		return nil, errors.New("upstashlocal: no token: clients must authenticate")
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	rdb := redis.NewClient(&redis.Options{
		Addr:                  cfg.RedisAddr,
		Protocol:              2,  // Upstash answers in RESP2 shapes
		MaxRetries:            -1, // a retried command may run twice
		ContextTimeoutEnabled: true,
		DisableIdentity:       true,
		ReadTimeout:           10 * time.Second,
		WriteTimeout:          10 * time.Second,
	})
	return &Server{rdb: rdb, token: []byte(cfg.Token), maxBody: cfg.MaxBodyBytes}, nil
}

// Ping checks that Redis answers.
func (s *Server) Ping(ctx context.Context) error { return s.rdb.Ping(ctx).Err() }

// Close closes the connections to Redis.
func (s *Server) Close() error { return s.rdb.Close() }

// ServeHTTP answers one REST request; see the package documentation.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if !s.authorized(r) {
		writeJSON(w, http.StatusUnauthorized, errorBody{"Unauthorized"})
		return
	}
	w.Header().Set("Upstash-Sync-Token", strconv.FormatUint(s.sync.Add(1), 10))
	status, body, err := s.route(w, r)
	if err != nil {
		status, body = http.StatusInternalServerError, errorBody{"ERR upstash-local: " + err.Error()}
		if he := (*httpError)(nil); errors.As(err, &he) {
			status, body = he.status, errorBody{he.msg}
		}
	}
	writeJSON(w, status, body)
}

// route parses the request by its path and runs it. An error that is not an
// *httpError (a broken connection to Redis) is answered 500.
func (s *Server) route(w http.ResponseWriter, r *http.Request) (int, any, error) {
	b64 := strings.EqualFold(r.Header.Get("Upstash-Encoding"), "base64")
	path := strings.Trim(r.URL.Path, "/")
	if path != "" && path != "pipeline" && path != "multi-exec" {
		args, err := s.pathCommand(w, r)
		if err != nil {
			return 0, nil, err
		}
		return s.runOne(r.Context(), args, b64)
	}
	if r.Method != http.MethodPost {
		return 0, nil, &httpError{http.StatusMethodNotAllowed, "ERR method not allowed: use POST"}
	}
	v, err := s.readJSON(w, r)
	if err != nil {
		return 0, nil, err
	}
	if path == "" {
		args, err := parseCommand(v)
		if err != nil {
			return 0, nil, err
		}
		return s.runOne(r.Context(), args, b64)
	}
	cmds, err := parseCommands(v)
	if err != nil {
		return 0, nil, err
	}
	return s.runBatch(r.Context(), cmds, path == "multi-exec", b64)
}

// authorized checks "Authorization: Bearer TOKEN", or ?_token=TOKEN when the
// header is absent, in constant time.
func (s *Server) authorized(r *http.Request) bool {
	got := r.URL.Query().Get("_token")
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return false
		}
		got = strings.TrimSpace(tok)
	}
	return got != "" && subtle.ConstantTimeCompare([]byte(got), s.token) == 1
}

// readBody reads the request body up to the cap.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
		return nil, &httpError{http.StatusRequestEntityTooLarge,
			"ERR max request size exceeded: the limit is " + strconv.FormatInt(s.maxBody, 10) + " bytes"}
	}
	if err != nil {
		return nil, badRequest("ERR reading the request body: %v", err)
	}
	return data, nil
}

func (s *Server) readJSON(w http.ResponseWriter, r *http.Request) (any, error) {
	body, err := s.readBody(w, r)
	if err != nil {
		return nil, err
	}
	return parseJSON(body)
}

// pathCommand reads the path form: /COMMAND/ARG/..., then a POST body as one more
// argument (binary-safe), then query parameters in order (?EX=100 adds EX, 100).
func (s *Server) pathCommand(w http.ResponseWriter, r *http.Request) ([]string, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		return nil, &httpError{http.StatusMethodNotAllowed, "ERR method not allowed: use GET or POST"}
	}
	var args []string
	for _, seg := range strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/") {
		arg, err := url.PathUnescape(seg)
		if err != nil {
			return nil, badRequest("ERR bad path segment %q", seg)
		}
		args = append(args, arg)
	}
	if r.Method == http.MethodPost {
		body, err := s.readBody(w, r)
		if err != nil {
			return nil, err
		}
		if len(body) > 0 {
			args = append(args, string(body))
		}
	}
	for _, kv := range strings.Split(r.URL.RawQuery, "&") {
		k, v, hasValue := strings.Cut(kv, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		switch {
		case err1 != nil || err2 != nil:
			return nil, badRequest("ERR bad query parameter %q", kv)
		case k == "" || k == "_token":
		case hasValue:
			args = append(args, k, v)
		default:
			args = append(args, k)
		}
	}
	if name := strings.ToUpper(args[0]); notOverREST[name] {
		return nil, badRequest("ERR command is not available over REST: %s", name)
	}
	return args, nil
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body) // the client has gone if this fails
}
