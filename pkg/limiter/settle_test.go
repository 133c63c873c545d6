package limiter

import (
	"encoding/json"
	"testing"
	"time"
)

func newSet(t *testing.T, rules ...Rule) *Set {
	t.Helper()
	s, err := NewSet(rules, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func allowed(t *testing.T, s *Set, st []State, now, cost int64) bool {
	t.Helper()
	d, err := s.Decide(st, now, cost)
	if err != nil {
		t.Fatal(err)
	}
	return d.Allowed
}

func TestConcurrencyHoldsSlotsUntilSettledOrExpired(t *testing.T) {
	s := newSet(t, Rule{Algorithm: Concurrency, Limit: 3, Lease: Every(16 * time.Second)})
	st := s.NewStates()
	const sec = int64(time.Second / time.Microsecond)
	t0 := 100 * sec
	for i := range 3 {
		if !allowed(t, s, st, t0+int64(i), 1000) { // the cost does not apply
			t.Fatalf("request %d denied under 3 slots", i)
		}
	}
	d, _ := s.Decide(st, t0+10, 1)
	if d.Allowed || d.Remaining != 0 || d.RetryAfter <= 0 {
		t.Fatalf("4th request in flight: %+v, want a denial with a retry", d)
	}
	s.Settle(st, t0+1, t0+20, 0)
	if !allowed(t, s, st, t0+21, 1) {
		t.Fatal("a settled slot was not freed")
	}
	// Every slot expires within lease + lease/16 of being taken.
	e := s.SlotExpiry(0, t0+21)
	if e < t0+21+16*sec || e > t0+21+17*sec {
		t.Fatalf("SlotExpiry = %d, want within [lease, lease+lease/16] after", e-t0)
	}
	if q := s.SlotQuantum(0); q != sec || e%q != 0 {
		t.Fatalf("SlotQuantum = %d µs, want lease/16 = 1 s, a divisor of every expiry", q)
	}
	if !allowed(t, s, st, e, 1) || !allowed(t, s, st, e, 1) || !allowed(t, s, st, e, 1) {
		t.Fatal("slots still held after every lease expired")
	}
}

func TestSettleRefundsOnlyTheCurrentWindow(t *testing.T) {
	for _, r := range []Rule{
		{Algorithm: FixedWindow, Limit: 10, Period: Every(time.Second)},
		{Algorithm: SlidingWindow, Limit: 10, Period: Every(time.Second)},
		{Algorithm: SlidingLog, Limit: 10, Period: Every(time.Second)},
		{Algorithm: TokenBucket, Limit: 10, Period: Every(time.Second)},
	} {
		t.Run(string(r.Algorithm), func(t *testing.T) {
			s := newSet(t, r)
			st := s.NewStates()
			const t0 = 5_000_000
			if !allowed(t, s, st, t0, 8) {
				t.Fatal("first reservation denied")
			}
			s.Settle(st, t0, t0+10, -6) // actual 2 of 8
			if !allowed(t, s, st, t0+20, 8) {
				t.Fatal("the refund did not free 6")
			}
			if allowed(t, s, st, t0+30, 1) {
				t.Fatal("over the limit after the refund")
			}
			later := s.NewStates()
			allowed(t, s, later, t0, 8)
			s.Settle(later, t0, t0+3_000_000, -6) // the window has moved on: nothing back
			if got, _ := s.Peek(later, t0+3_000_000, nil); got.Remaining != 10 {
				t.Fatalf("a late refund changed a fresh window: remaining %d", got.Remaining)
			}
		})
	}
}

func TestSettleChargesIntoDebt(t *testing.T) {
	s := newSet(t, Rule{Algorithm: FixedWindow, Limit: 100, Period: Every(time.Minute)},
		Rule{Name: "b", Algorithm: TokenBucket, Limit: 100, Period: Every(time.Minute)})
	st := s.NewStates()
	const t0 = 60_000_000
	allowed(t, s, st, t0, 10)
	s.Settle(st, t0, t0+1, 390) // 400 in all, against 100
	d, _ := s.Decide(st, t0+2, 1)
	if d.Allowed || d.Remaining != 0 {
		t.Fatalf("after a debt: %+v, want denied with remaining 0", d)
	}
}

func TestConcurrencyRuleJSON(t *testing.T) {
	r, err := ParseRule([]byte(`{"algorithm": "concurrency", "limit": 10, "lease": "30s"}`))
	if err != nil || r.Lease.Micros() != 30_000_000 {
		t.Fatalf("ParseRule: %+v, %v", r, err)
	}
	b, _ := json.Marshal(r)
	if _, err := ParseRule(b); err != nil {
		t.Fatalf("round trip of %s: %v", b, err)
	}
	if d, _ := ParseRule([]byte(`{"algorithm": "concurrency", "limit": 10}`)); d.Lease.Micros() != DefaultLease.Microseconds() {
		t.Fatalf("default lease: %v", d.Lease)
	}
	for _, bad := range []string{
		`{"algorithm": "concurrency", "limit": 10, "period": "1s"}`,
		`{"algorithm": "concurrency", "limit": 10, "lease": "10ms"}`,
		`{"algorithm": "concurrency", "limit": 10, "lease": "day"}`,
		`{"algorithm": "fixed_window", "limit": 10, "period": "1s", "lease": "10s"}`,
		`{"algorithm": "concurrency", "limit": 0}`,
	} {
		if _, err := ParseRule([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestBucketRefundAtTheBounds(t *testing.T) {
	const tera = 1_000_000_000_000
	s := newSet(t, Rule{Algorithm: TokenBucket, Limit: tera, Period: Every(744 * time.Hour), Burst: tera})
	st := s.NewStates()
	const t0 = 1_000_000_000_000_000
	if !allowed(t, s, st, t0, tera) {
		t.Fatal("a full bucket denied its burst")
	}
	s.Settle(st, t0, t0, -(tera - 3)) // actual 3
	d, _ := s.Peek(st, t0, nil)
	if d.Remaining != tera-3 {
		t.Fatalf("after refunding all but 3 of 10^12: remaining %d, want %d", d.Remaining, int64(tera-3))
	}
	s.Settle(st, t0, t0, -tera) // more than it holds: full, no more
	if d, _ := s.Peek(st, t0, nil); d.Remaining != tera {
		t.Fatalf("an over-refund: remaining %d, want the burst", d.Remaining)
	}
}

func TestBucketDebtStopsAtMaxDebtTAT(t *testing.T) {
	s := newSet(t, Rule{Algorithm: TokenBucket, Limit: 1, Period: Every(744 * time.Hour)})
	st := s.NewStates()
	const now = 1_796_040_000_000_000
	allowed(t, s, st, now, 1)
	s.Settle(st, now, now, 3_443_610) // n x period passes int64
	if st[0].TAT != MaxDebtTAT || st[0].TATFrac != 0 {
		t.Fatalf("TAT after a huge charge: %d+%d/limit, want MaxDebtTAT", st[0].TAT, st[0].TATFrac)
	}
	if allowed(t, s, st, now+1, 1) || allowed(t, s, st, MaxTime, 1) {
		t.Fatal("a bucket in debt past MaxTime allowed a request")
	}
}
