package tenant

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/edgelimit/edgelimit/internal/tzdata"
)

// locations caches loaded zones by name: tzdata.LoadLocation (the system's database,
// else the embedded copy) reads and parses a file on every call. Only names that loaded are cached, and at most maxCachedZones of them.
var (
	locations    sync.Map // string -> *time.Location
	locationsMu  sync.Mutex
	locationsLen int
)

const maxCachedZones = 1024

// loadLocation returns the IANA zone name. It accepts only canonical names (letters,
// digits, '/', '_', '+', '-'; no empty segment), so that one zone has one name; "Local"
// is refused, as it means whatever the machine is set to.
func loadLocation(name string) (*time.Location, error) {
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location), nil
	}
	if err := checkZoneName(name); err != nil {
		return nil, err
	}
	loc, err := tzdata.LoadLocation(name)
	if err != nil {
		return nil, errors.New(`unknown time zone: want an IANA name such as "Europe/Paris" or "UTC"`)
	}
	locationsMu.Lock()
	defer locationsMu.Unlock()
	if locationsLen < maxCachedZones {
		if _, loaded := locations.LoadOrStore(name, loc); !loaded {
			locationsLen++
		}
	}
	return loc, nil
}

func checkZoneName(name string) error {
	switch {
	case name == "":
		return errors.New("is empty: want an IANA name such as \"Europe/Paris\" or \"UTC\"")
	case name == "Local":
		return errors.New(`"Local" depends on the machine: name the zone, such as "Europe/Paris" or "UTC"`)
	case len(name) > MaxTimezoneLen:
		return fmt.Errorf("is longer than %d bytes", MaxTimezoneLen)
	case strings.HasPrefix(name, "/"), strings.HasSuffix(name, "/"), strings.Contains(name, "//"):
		return errors.New("is not an IANA name: no empty path segment")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/_+-", c) >= 0) {
			return errors.New("is not an IANA name: letters, digits, '/', '_', '+' and '-' only")
		}
	}
	return nil
}
