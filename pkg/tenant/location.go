package tenant

import (
	"embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

//go:generate sh -c "rm -rf zoneinfo && mkdir zoneinfo && cd zoneinfo && unzip -q $GOROOT/lib/time/zoneinfo.zip"

// zoneinfo is Go's time zone database: the files of the toolchain's
// lib/time/zoneinfo.zip (the database time/tzdata embeds), one file per zone. Every
// zone is loaded from it, never from the system's files (ZONEINFO,
// /usr/share/zoneinfo), so that every instance computes the same windows whatever
// image it runs on. An embed.FS finds a file without reading an index first, so the
// first zone costs what any other does.
//
//go:embed zoneinfo
var zoneinfo embed.FS

// locations caches loaded zones by name: embeddedLocation reads and parses a zone file
// on every call. Only names that loaded are cached, so the cache holds at most the
// zones of the embedded database (about 600).
var locations sync.Map // string -> *time.Location

// LoadLocation returns the IANA zone name from the embedded database (never the
// system's: see zoneinfo), the one way edgelimit loads a zone. It accepts only
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
	locations.Store(name, loc)
	return loc, nil
}

// embeddedLocation loads name from zoneinfo; "UTC" is time.UTC, as time.LoadLocation
// has it.
func embeddedLocation(name string) (*time.Location, error) {
	if name == "UTC" {
		return time.UTC, nil
	}
	data, err := zoneinfo.ReadFile("zoneinfo/" + name)
	if err != nil {
		return nil, err
	}
	return time.LoadLocationFromTZData(name, data)
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
	if !asciiOnly(name, true, "/_+-") {
		return errors.New("is not an IANA name: letters, digits, '/', '_', '+' and '-' only")
	}
	return nil
}
