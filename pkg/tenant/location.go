package tenant

import (
	"archive/zip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

//go:generate cp $GOROOT/lib/time/zoneinfo.zip zoneinfo.zip

// zoneinfoZip is Go's time zone database, lib/time/zoneinfo.zip of the toolchain (the
// bytes time/tzdata embeds). Every zone is loaded from it, never from the system's
// files (ZONEINFO, /usr/share/zoneinfo), so that every instance computes the same
// windows whatever image it runs on.
//
//go:embed zoneinfo.zip
var zoneinfoZip string

// zoneinfo is zoneinfoZip opened, on the first zone loaded.
var zoneinfo = sync.OnceValues(func() (*zip.Reader, error) {
	return zip.NewReader(strings.NewReader(zoneinfoZip), int64(len(zoneinfoZip)))
})

// locations caches loaded zones by name: embeddedLocation reads and parses a zone file
// on every call. Only names that loaded are cached, and at most maxCachedZones of them.
var (
	locations    sync.Map // string -> *time.Location
	locationsMu  sync.Mutex
	locationsLen int
)

const maxCachedZones = 1024

// LoadLocation returns the IANA zone name from the embedded database (never the
// system's: see zoneinfoZip), the one way edgelimit loads a zone. It accepts only
// canonical names (letters, digits, '/', '_', '+', '-'; no empty segment), so that one
// zone has one name; "Local" is refused, as it means whatever the machine is set to.
func LoadLocation(name string) (*time.Location, error) {
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location), nil
	}
	if err := checkZoneName(name); err != nil {
		return nil, err
	}
	loc, err := embeddedLocation(name)
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

// embeddedLocation loads name from zoneinfoZip; "UTC" is time.UTC, as time.LoadLocation
// has it.
func embeddedLocation(name string) (*time.Location, error) {
	if name == "UTC" {
		return time.UTC, nil
	}
	data, err := zoneFile(name)
	if err != nil {
		return nil, err
	}
	return time.LoadLocationFromTZData(name, data)
}

// zoneFile returns the zone file of name in zoneinfoZip.
func zoneFile(name string) ([]byte, error) {
	db, err := zoneinfo()
	if err != nil {
		return nil, err
	}
	f, err := db.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
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
