package tzdata

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// The embedded copy is the Go toolchain's database: when Go brings a newer one, run
// `go generate ./internal/tzdata`.
func TestTheCopyIsGosDatabase(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Skipf("no zoneinfo.zip in GOROOT: %v", err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the embedded database (%d bytes) is not %s's (%d bytes): run go generate ./internal/tzdata", len(got), runtime.Version(), len(want))
	}
}

// A zone loaded from the embedded copy is the zone the system's database gives: the
// same offsets at instants on both sides of a daylight saving change. Unknown names
// are refused by both.
func TestEmbeddedZonesAreTheSystems(t *testing.T) {
	for _, name := range []string{"Asia/Kathmandu", "America/New_York", "Europe/Paris", "Australia/Lord_Howe", "UTC"} {
		data, ok := Embedded(name)
		if !ok {
			t.Fatalf("%s is not embedded", name)
		}
		got, err := time.LoadLocationFromTZData(name, data)
		if err != nil {
			t.Fatal(err)
		}
		want, err := time.LoadLocation(name)
		if err != nil {
			t.Skipf("the system has no %s: %v", name, err)
		}
		for _, at := range []string{"2026-01-15T12:00:00Z", "2026-07-15T12:00:00Z", "2026-03-29T00:30:00Z"} {
			ts, _ := time.Parse(time.RFC3339, at)
			gn, gotOff := ts.In(got).Zone()
			wn, wo := ts.In(want).Zone()
			if gn != wn || gotOff != wo {
				t.Errorf("%s at %s: embedded %s %d, system %s %d", name, at, gn, gotOff, wn, wo)
			}
		}
	}
	if _, ok := Embedded("Mars/Olympus_Mons"); ok {
		t.Error("an unknown zone is embedded")
	}
	if _, err := LoadLocation("Mars/Olympus_Mons"); err == nil {
		t.Error("LoadLocation of an unknown zone succeeded")
	}
}

// Where the system has no database, LoadLocation loads the zone from the embedded
// copy; a name the copy lacks keeps the system's error.
func TestLoadLocationWithoutTheSystemsDatabase(t *testing.T) {
	none := func(name string) (*time.Location, error) { return nil, errors.New("unknown time zone " + name) }
	loc, err := load("Asia/Kathmandu", none)
	if err != nil || loc.String() != "Asia/Kathmandu" {
		t.Fatalf("load: %v, %v", loc, err)
	}
	if _, off := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).In(loc).Zone(); off != 5*3600+45*60 {
		t.Errorf("Kathmandu's offset %d s, want +05:45", off)
	}
	if _, err := load("Mars/Olympus_Mons", none); err == nil || err.Error() != "unknown time zone Mars/Olympus_Mons" {
		t.Errorf("an unknown zone: %v, want the system's error", err)
	}
}
