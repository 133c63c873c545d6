package tzdata

//go:generate go run ./internal/gen -o zoneinfo.chunks $GOROOT/lib/time/zoneinfo.zip

import (
	"bytes"
	_ "embed"
	"time"
)

//go:embed zoneinfo.chunks
var packed string

// embedded is the embedded database.
var embedded = open(packed)

// LoadLocation is time.LoadLocation, falling back on the embedded database for a zone
// that the system (ZONEINFO, /usr/share/zoneinfo and the like) does not have.
func LoadLocation(name string) (*time.Location, error) {
	return embedded.load(name, time.LoadLocation)
}

// load is LoadLocation from d with the system's loader given.
func (d *database) load(name string, system func(string) (*time.Location, error)) (*time.Location, error) {
	loc, err := system(name)
	if err == nil {
		return loc, nil
	}
	if data, ok := d.zone(name); ok {
		return time.LoadLocationFromTZData(name, data) // which keeps no reference to data
	}
	return nil, err
}

// Embedded returns the zone file of name in the embedded database, if it has one: a
// copy, that the caller may modify.
func Embedded(name string) ([]byte, bool) {
	data, ok := embedded.zone(name)
	if !ok {
		return nil, false
	}
	return bytes.Clone(data), true
}
