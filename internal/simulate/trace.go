package simulate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// Request is one parsed line of a trace.
type Request struct {
	Line int    // 1-based line number in the trace
	At   int64  // microseconds since the Unix epoch
	Key  string // the caller's API key: key-scope rules count per key
	Cost int64
	Addr string // the client's address: ip-scope rules count per address ("" unknown)
}

// LineError is an error in one line of a trace.
type LineError struct {
	Line   int
	Reason string
}

// Error formats the error as `line N: reason`, the simulate error contract.
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// DefaultKey is the key of a line that names none.
const DefaultKey = "default"

// maxLine bounds one trace line.
const maxLine = 64 * 1024

// ParseTrace reads a whole trace. set, when not nil, also checks every cost against the
// rules' capacities, so that a request that could never be allowed is an input error.
// The first error stops parsing and is a *LineError.
func ParseTrace(r io.Reader, set *limiter.Set) ([]Request, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxLine)
	var out []Request
	last, n := int64(0), 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		req, err := parseLine(text, set)
		if err != nil {
			return nil, &LineError{Line: n, Reason: err.Error()}
		}
		if req.At < last {
			return nil, &LineError{Line: n, Reason: fmt.Sprintf("time %s is before the previous line's %s: times must not decrease", formatSeconds(req.At), formatSeconds(last))}
		}
		req.Line, last = n, req.At
		out = append(out, req)
	}
	if err := sc.Err(); err != nil {
		return nil, &LineError{Line: n + 1, Reason: err.Error()}
	}
	return out, nil
}

func parseLine(text string, set *limiter.Set) (Request, error) {
	fields := strings.Split(text, ",")
	if len(fields) > 4 {
		return Request{}, fmt.Errorf("%d fields: want TIME[,KEY[,COST[,ADDR]]]", len(fields))
	}
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	at, err := ParseTime(fields[0])
	if err != nil {
		return Request{}, err
	}
	req := Request{At: at, Key: DefaultKey, Cost: 1}
	if len(fields) > 1 && fields[1] != "" {
		req.Key = fields[1]
	}
	if len(fields) > 2 && fields[2] != "" {
		if req.Cost, err = strconv.ParseInt(fields[2], 10, 64); err != nil || req.Cost < 1 {
			return Request{}, fmt.Errorf("cost %q: want an integer >= 1", fields[2])
		}
	}
	if len(fields) > 3 && fields[3] != "" {
		addr, ok := tenant.ClientAddress(fields[3])
		if !ok {
			return Request{}, fmt.Errorf("address %q: want an IPv4 or IPv6 address", fields[3])
		}
		req.Addr = addr
	}
	if set != nil {
		if err := set.CheckCost(req.Cost); err != nil {
			return Request{}, err
		}
	}
	return req, nil
}

// ParseTime reads decimal seconds since the Unix epoch ("1700000000.25") or an RFC 3339
// timestamp, truncated to microseconds, between 1970 and limiter.MaxTime.
func ParseTime(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("missing time: want decimal seconds since the Unix epoch or RFC 3339")
	}
	var at int64
	if s[0] >= '0' && s[0] <= '9' && !strings.ContainsAny(s, "-:T") {
		var err error
		if at, err = parseSeconds(s); err != nil {
			return 0, err
		}
	} else {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, fmt.Errorf("time %q: want decimal seconds since the Unix epoch or RFC 3339", s)
		}
		at = t.UnixMicro()
	}
	if at < 0 || at > limiter.MaxTime {
		return 0, fmt.Errorf("time %q: must be between 1970 and 2200", s)
	}
	return at, nil
}

// parseSeconds reads decimal seconds exactly, without floating point.
func parseSeconds(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	bad := fmt.Errorf("time %q: want decimal seconds since the Unix epoch or RFC 3339", s)
	if whole == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" || len(whole) > 12 {
		return 0, bad
	}
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, bad
	}
	frac = (frac + "000000")[:6] // truncate to microseconds
	us, _ := strconv.ParseInt(frac, 10, 64)
	return sec*1_000_000 + us, nil
}

// formatSeconds writes microseconds as seconds with 6 decimals.
func formatSeconds(us int64) string {
	return fmt.Sprintf("%d.%06d", us/1_000_000, us%1_000_000)
}
