package limiter

// State is one rule's stored state for one key. Its zero value is a key never seen:
// an empty window, an empty log, a full bucket. Which fields an algorithm uses:
//
//	fixed_window    WindowStart, WindowEnd, Count
//	sliding_window  WindowStart, Count (current window), Prev (previous window), Last
//	sliding_log     Log, and Last (its newest entry)
//	token_bucket,
//	leaky_bucket    TAT, TATFrac, Last
//
// A backend stores these fields and hands them back; Set.Decide updates them only when
// the request is allowed.
type State struct {
	WindowStart int64 // start of the current window, microseconds
	WindowEnd   int64 // end of the current fixed window (it may be extended by a zone change)
	Count       int64 // cost admitted in the current window
	Prev        int64 // cost admitted in the previous sliding window
	TAT         int64 // bucket: theoretical arrival time, whole microseconds
	TATFrac     int64 // bucket: and the fraction of a microsecond, in units of 1/limit
	Last        int64 // latest instant that consumed (the clock-skew rule)
	Log         Log   // sliding_log: admitted requests, oldest first
}

// Entry is one instant of a sliding log: the total cost admitted at At.
type Entry struct {
	At   int64
	Cost int64
}

// Log is a sliding log's entries, oldest first, in a ring buffer that grows to the
// rule's limit and is then reused: steady traffic does not allocate.
type Log struct {
	buf  []Entry
	head int
	n    int
}

// Len returns the number of entries.
func (l *Log) Len() int { return l.n }

// At returns the i-th entry, oldest first.
func (l *Log) At(i int) Entry { return l.buf[(l.head+i)%len(l.buf)] }

// Entries returns a copy of the entries, oldest first.
func (l *Log) Entries() []Entry {
	out := make([]Entry, l.n)
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// Push appends cost at instant at, merging with the newest entry when at is the same.
func (l *Log) Push(at, cost int64) {
	if l.n > 0 {
		last := (l.head + l.n - 1) % len(l.buf)
		if l.buf[last].At == at {
			l.buf[last].Cost += cost
			return
		}
	}
	if l.n == len(l.buf) {
		l.grow()
	}
	l.buf[(l.head+l.n)%len(l.buf)] = Entry{At: at, Cost: cost}
	l.n++
}

// add adds delta to the cost of the i-th entry, oldest first.
func (l *Log) add(i int, delta int64) { l.buf[(l.head+i)%len(l.buf)].Cost += delta }

// Drop removes the k oldest entries.
func (l *Log) Drop(k int) {
	if k >= l.n {
		l.head, l.n = 0, 0
		return
	}
	l.head = (l.head + k) % len(l.buf)
	l.n -= k
}

func (l *Log) grow() {
	buf := make([]Entry, max(2*len(l.buf), 4))
	for i := range l.n {
		buf[i] = l.At(i)
	}
	l.buf, l.head = buf, 0
}
