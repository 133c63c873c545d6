package upstashrest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// echoServer answers ECHO commands, alone on / or in batches on /pipeline, and
// records each request's path and command count. While hold is open, requests wait.
type echoServer struct {
	*httptest.Server
	hold     chan struct{}
	mu       sync.Mutex
	requests []string // "/ 1", "/pipeline 14"
}

func newEchoServer(t *testing.T) *echoServer {
	s := &echoServer{hold: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var cmds [][]string
		if r.URL.Path == "/pipeline" {
			_ = json.Unmarshal(body, &cmds)
		} else {
			var cmd []string
			_ = json.Unmarshal(body, &cmd)
			cmds = [][]string{cmd}
		}
		s.mu.Lock()
		s.requests = append(s.requests, fmt.Sprintf("%s %d", r.URL.Path, len(cmds)))
		s.mu.Unlock()
		<-s.hold
		results := make([]map[string]string, len(cmds))
		for i, c := range cmds {
			results[i] = map[string]string{"result": base64.StdEncoding.EncodeToString([]byte(c[1]))}
		}
		if r.URL.Path == "/pipeline" {
			_ = json.NewEncoder(w).Encode(results)
		} else {
			_ = json.NewEncoder(w).Encode(results[0])
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *echoServer) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// With pipelining, calls made while pipelineDepth requests are in flight wait, and go
// together in one /pipeline request when one of those returns; each call gets its own
// reply. A lone call goes alone, to /.
func TestPipeliningSharesARequest(t *testing.T) {
	s := newEchoServer(t)
	c, err := NewClient(Config{URL: s.URL, Token: "t", Pipelining: true})
	if err != nil {
		t.Fatal(err)
	}
	const calls = 16
	replies := make([]string, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			r, err := c.Do(context.Background(), "ECHO", fmt.Sprint("v", i))
			if err != nil {
				t.Error(err)
			}
			replies[i], _ = r.String()
		})
	}
	testenv.WaitFor(t, 10*time.Second, "two requests in flight and the other calls queued", func() bool {
		c.pipe.mu.Lock()
		defer c.pipe.mu.Unlock()
		return len(s.log()) == pipelineDepth && len(c.pipe.queue) == calls-pipelineDepth
	})
	close(s.hold)
	wg.Wait()
	for i, r := range replies {
		if r != fmt.Sprint("v", i) {
			t.Errorf("call %d got %q", i, r)
		}
	}
	if got := s.log(); len(got) != 3 || got[2] != fmt.Sprintf("/pipeline %d", calls-pipelineDepth) {
		t.Errorf("requests %v, want two alone and one /pipeline of the %d queued", got, calls-pipelineDepth)
	}
	if r, err := c.Do(context.Background(), "ECHO", "alone"); err != nil || r.s != "alone" || s.log()[3] != "/ 1" {
		t.Errorf("a lone call: %v, %v, requests %v", r, err, s.log())
	}
}

// A queued call whose context ends returns at once, and the others still get their
// replies; a command that cannot be encoded fails alone, before it is queued.
func TestPipeliningCancelAndBadCommands(t *testing.T) {
	s := newEchoServer(t)
	c, err := NewClient(Config{URL: s.URL, Token: "t", Pipelining: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range pipelineDepth {
		wg.Go(func() {
			if r, err := c.Do(context.Background(), "ECHO", fmt.Sprint("held", i)); err != nil || r.s != fmt.Sprint("held", i) {
				t.Errorf("held call %d: %v, %v", i, r, err)
			}
		})
	}
	testenv.WaitFor(t, 10*time.Second, "the requests in flight", func() bool { return len(s.log()) == pipelineDepth })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := c.Do(ctx, "ECHO", "given up"); done <- err }()
	testenv.WaitFor(t, 10*time.Second, "the call queued", func() bool {
		c.pipe.mu.Lock()
		defer c.pipe.mu.Unlock()
		return len(c.pipe.queue) == 1
	})
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled queued call: %v", err)
	}
	if _, err := c.Do(context.Background(), "ECHO", struct{}{}); err == nil {
		t.Error("an argument that cannot be encoded was accepted")
	}
	close(s.hold)
	wg.Wait()
}
