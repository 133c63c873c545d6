package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edgelimit/edgelimit/pkg/store"
)

// EpochChangedMessage is the message of the line the gate writes when its tenant
// store's epoch marker changed (see CheckEpoch); the line is also a CloudWatch EMF
// document counting EpochChangedMetric once, in the namespace edgelimit.
const (
	EpochChangedMessage = "tenant store epoch changed: the store lost its data; cached tenants, keys and denials dropped"
	EpochChangedMetric  = "StoreEpochChanged"
)

// epochTimeout bounds a check started by a decision, which runs apart from it.
const epochTimeout = time.Second

// epochWatch checks the epoch marker of a tenant store that has one (store.Epoch):
// read at the first decision, then once per config TTL, in the background of the
// decision that finds it due (never an extra round trip within a decision's budget).
type epochWatch struct {
	store   store.Epoch
	every   int64 // microseconds between checks
	out     io.Writer
	mu      sync.Mutex // one check at a time; guards id
	id      string     // the epoch seen last; "" before the first read
	next    atomic.Int64
	running atomic.Bool
}

// newEpochWatch returns the watch of ts's marker, or nil when ts has none. A gate
// without a config cache (ttl < 0) checks once a second.
func newEpochWatch(ts Tenants, ttl time.Duration, out io.Writer) *epochWatch {
	ep, ok := ts.(store.Epoch)
	if !ok {
		return nil
	}
	every := ttl.Microseconds()
	if every <= 0 {
		every = time.Second.Microseconds()
	}
	if out == nil {
		out = os.Stdout
	}
	return &epochWatch{store: ep, every: every, out: out}
}

// poll starts a check in the background when one is due at now.
func (g *Gate) pollEpoch(now int64) {
	w := g.epoch
	if w == nil || now < w.next.Load() || !w.running.CompareAndSwap(false, true) {
		return
	}
	w.next.Store(now + w.every)
	go func() {
		defer w.running.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), epochTimeout)
		defer cancel()
		g.CheckEpoch(ctx) // a failed read is tried again at the next check
	}()
}

// CheckEpoch reads the tenant store's epoch marker now and reports whether it changed
// since the last read (the first read only remembers it). On a change, which means
// that the store lost its data (or its marker), it writes one line (EpochChangedMessage,
// with the previous and the new epoch, also an EMF document counting
// EpochChangedMetric once) and drops the cached tenants, key records (found or not)
// and denials, so that keys of tenants the store no longer holds stop being admitted.
// The store wrote a new marker as it read the missing one. It does nothing for a
// tenant store without a marker. Decisions call it in the background, once per config
// TTL; a read made here puts their next check a TTL later. It is exported for tests
// and tools.
func (g *Gate) CheckEpoch(ctx context.Context) (bool, error) {
	w := g.epoch
	if w == nil {
		return false, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	id, err := w.store.Epoch(ctx)
	if err != nil {
		return false, err
	}
	if next := g.now() + w.every; next > w.next.Load() {
		w.next.Store(next)
	}
	old := w.id
	w.id = id
	if old == "" || old == id {
		return false, nil
	}
	g.configs.keys.Purge()
	g.configs.missing.Purge()
	g.configs.tenants.Purge()
	g.denials.m.Purge()
	w.writeChange(g.now(), old, id)
	return true, nil
}

// writeChange writes the line of an epoch change: a structured log line that is also
// an EMF document. The epochs are encoded by encoding/json; the rest is constant (the
// two constants are plain ASCII, which %q quotes as JSON does).
func (w *epochWatch) writeChange(now int64, old, id string) {
	prev, _ := json.Marshal(old) // a string always encodes
	next, _ := json.Marshal(id)
	_, _ = fmt.Fprintf(w.out, `{"_aws":{"Timestamp":%d,"CloudWatchMetrics":[{"Namespace":"edgelimit","Dimensions":[[]],`+
		`"Metrics":[{"Name":%q,"Unit":"Count"}]}]},"level":"WARN","msg":%q,"previous_epoch":%s,"epoch":%s,%[2]q:1}`+"\n",
		now/1000, EpochChangedMetric, EpochChangedMessage, prev, next) // stdout: nothing to do if it fails
}
