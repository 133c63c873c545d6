package redis

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/storetest"
)

// rotatingSecret is a password store: RefreshPassword reads its current value, or
// fails when err is set, and counts the reads; each read also sends on read, when it
// is set and has room.
type rotatingSecret struct {
	mu    sync.Mutex
	value string
	err   error
	reads int
	read  chan struct{}
}

func (s *rotatingSecret) get(context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	select {
	case s.read <- struct{}{}:
	default:
	}
	return s.value, s.err
}

func (s *rotatingSecret) set(v string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.value, s.err = v, err
}

func (s *rotatingSecret) count() int { s.mu.Lock(); defer s.mu.Unlock(); return s.reads }

// rotate sets the server's requirepass from old to new and kills the other normal
// clients, so that theirs reconnect and authenticate again.
func rotate(t *testing.T, addr, old, new string) {
	t.Helper()
	admin := newTestClient(t, Config{Addrs: []string{addr}, Password: old})
	for _, cmd := range [][]string{{"CONFIG", "SET", "requirepass", new}, {"CLIENT", "KILL", "TYPE", "normal"}} {
		if err := admin.Do(t.Context(), func(b rueidis.Builder) rueidis.Completed { return b.Arbitrary(cmd...).Build() }).Error(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
}

// decider decides on c's counters under the production budget (100 ms), round the
// keys.
func decider(t *testing.T, c *Client) func(i int) error {
	counters := NewCounters(c, CountersConfig{})
	set := storetest.Set(t, nil, `{"algorithm": "sliding_window", "limit": 1000, "period": "1m"}`)
	keys := []string{storetest.Key(t, "a"), storetest.Key(t, "b"), storetest.Key(t, "c")}
	return func(i int) error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := store.DecideOne(ctx, counters, keys[i%len(keys)], set, limiter.Micros(time.Now()), 1)
		return err
	}
}

// untilRecovered decides every 10 ms (requests keep arriving) until 6 decisions in a
// row pass, and returns how many failed and when the last failure was; it fails the
// test when that takes longer than within. Each of rueidis's connections fails once
// (EOF) at its first use after being killed, so one success is not yet a recovery.
func untilRecovered(t *testing.T, decide func(int) error, within time.Duration) (failed int, took time.Duration) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	for i, row := 0, 0; row < 6; i++ {
		if err := decide(i); err == nil {
			row++
			continue
		} else if took, failed, row = time.Since(start), failed+1, 0; took > within {
			t.Fatalf("still failing %v after the rotation (%d decisions failed): %v", took, failed, err)
		}
		<-tick.C
	}
	return failed, took
}

// A rotated password is read again after the server refuses the old one, and the same
// Client (the same rueidis client, not a new one) recovers within a bounded time.
func TestRotatedPasswordIsReadAgain(t *testing.T) {
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{Password: "old-password"})
	secret := &rotatingSecret{value: "old-password"}
	c := newTestClient(t, Config{Addrs: []string{srv.Addr}, Password: "old-password", RefreshPassword: secret.get})
	decide := decider(t, c)
	if err := decide(0); err != nil {
		t.Fatal(err)
	}
	before := c.conn.Load()
	secret.set("new-password", nil)
	rotate(t, srv.Addr, "old-password", "new-password")
	failed, took := untilRecovered(t, decide, 2*time.Second)
	t.Logf("%d decisions failed, the last %v after the rotation", failed, took)
	if c.conn.Load() != before {
		t.Error("a new rueidis client was built; want the same one reconnecting")
	}
	if n := secret.count(); n != 1 {
		t.Errorf("%d reads, want 1 (after the refusal)", n)
	}
}

// Refusals read the password again at most once per interval, and a read that fails
// keeps the password and reports the server's refusal, not a panic.
func TestPasswordReadAtMostOncePerInterval(t *testing.T) {
	srv := testenv.StartRedisServer(t, testenv.RedisServerConfig{Password: "old-password"})
	secret := &rotatingSecret{value: "old-password", read: make(chan struct{}, 1)}
	c := newTestClient(t, Config{Addrs: []string{srv.Addr}, Password: "old-password", RefreshPassword: secret.get,
		PasswordRefreshInterval: time.Hour})
	decide := decider(t, c)
	if err := decide(0); err != nil {
		t.Fatal(err)
	}
	secret.set("", errors.New("secrets manager unreachable"))
	rotate(t, srv.Addr, "old-password", "new-password")
	for i := range 10 {
		if err := decide(i); err == nil {
			t.Fatalf("decision %d passed with the old password", i)
		}
	}
	select {
	case <-secret.read:
	case <-time.After(2 * time.Second):
		t.Fatal("no read of the password after 10 refused decisions")
	}
	for i := range 10 {
		if err := decide(i); !isAuthRefusal(err) && i > 3 { // the killed connections may answer EOF first
			t.Fatalf("decision %d after the failed read: %v, want the server's refusal", i, err)
		}
	}
	if n := secret.count(); n != 1 {
		t.Errorf("%d reads after 20 refused decisions within the interval, want 1", n)
	}
	if got := *c.auth.password.Load(); got != "old-password" {
		t.Errorf("password %q after a failed read, want the old one kept", got)
	}
}
