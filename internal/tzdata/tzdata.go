package tzdata

//go:generate sh -c "gzip -9 -n -c \"$(go env GOROOT)/lib/time/zoneinfo.zip\" > zoneinfo.zip.gz"

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sync"
	"time"
)

//go:embed zoneinfo.zip.gz
var compressed []byte

// embedded is the decompressed database, read once.
var embedded = sync.OnceValues(func() (*zip.Reader, error) {
	gz, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(gz)
	if err != nil {
		return nil, err
	}
	return zip.NewReader(bytes.NewReader(data), int64(len(data)))
})

// LoadLocation is time.LoadLocation, falling back on the embedded database for a zone
// that the system (ZONEINFO, /usr/share/zoneinfo and the like) does not have.
func LoadLocation(name string) (*time.Location, error) { return load(name, time.LoadLocation) }

// load is LoadLocation with the system's loader given.
func load(name string, system func(string) (*time.Location, error)) (*time.Location, error) {
	loc, err := system(name)
	if err == nil {
		return loc, nil
	}
	if data, ok := Embedded(name); ok {
		return time.LoadLocationFromTZData(name, data)
	}
	return nil, err
}

// Embedded returns the zone file of name in the embedded database, if it has one.
func Embedded(name string) ([]byte, bool) {
	db, err := embedded()
	if err != nil {
		panic(fmt.Sprintf("tzdata: the embedded database does not decompress: %v", err)) // go:embed'ed bytes
	}
	f, err := db.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	return data, err == nil
}
