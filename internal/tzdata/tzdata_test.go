package tzdata

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// The embedded copy is the Go toolchain's database: every file of its zoneinfo.zip,
// byte for byte, and no other name. When Go brings a newer one, run
// `go generate ./internal/tzdata`.
func TestEveryZoneOfGoIsEmbedded(t *testing.T) {
	z, err := zip.OpenReader(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Skipf("no zoneinfo.zip in GOROOT: %v", err)
	}
	defer z.Close()
	var want []string
	for _, f := range z.File {
		want = append(want, f.Name)
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := Embedded(f.Name); !ok || !bytes.Equal(got, data) {
			t.Errorf("%s: embedded %d bytes (%v), %s has %d: run go generate ./internal/tzdata", f.Name, len(got), ok, runtime.Version(), len(data))
		}
	}
	slices.Sort(want)
	if got := embedded.names(); !slices.Equal(got, want) {
		t.Errorf("the embedded copy has %d zones, %s's zoneinfo.zip %d: run go generate ./internal/tzdata", len(got), runtime.Version(), len(want))
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
	loc, err := embedded.load("Asia/Kathmandu", none)
	if err != nil || loc.String() != "Asia/Kathmandu" {
		t.Fatalf("load: %v, %v", loc, err)
	}
	if _, off := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC).In(loc).Zone(); off != 5*3600+45*60 {
		t.Errorf("Kathmandu's offset %d s, want +05:45", off)
	}
	if _, err := embedded.load("Mars/Olympus_Mons", none); err == nil || err.Error() != "unknown time zone Mars/Olympus_Mons" {
		t.Errorf("an unknown zone: %v, want the system's error", err)
	}
}

// Embedded's bytes are the caller's: changing them changes no later lookup.
func TestEmbeddedIsACopy(t *testing.T) {
	data, _ := Embedded("Europe/Paris")
	clear(data)
	if again, _ := Embedded("Europe/Paris"); !bytes.HasPrefix(again, []byte("TZif")) {
		t.Errorf("Europe/Paris after its copy was cleared: %.8q", again)
	}
}

// A lookup decompresses its zone's chunk and no other; a second zone of the same chunk
// decompresses nothing more.
func TestALookupDecompressesOnlyItsChunk(t *testing.T) {
	d := open(packed)
	if _, ok := d.zone("Europe/Paris"); !ok {
		t.Fatal("Europe/Paris is not embedded")
	}
	idx := d.index()
	paris := idx.zones[slices.IndexFunc(idx.zones, func(z zone) bool { return z.name == "Europe/Paris" })]
	var sibling string
	for i := range idx.chunks {
		if c := &idx.chunks[i]; (c.raw != nil) != (i == paris.chunk) {
			t.Errorf("chunk %d decompressed: %v (Europe/Paris is in chunk %d)", i, c.raw != nil, paris.chunk)
		}
	}
	for _, z := range idx.zones {
		if z.chunk == paris.chunk && z.offset != paris.offset {
			sibling = z.name
		}
	}
	before := &idx.chunks[paris.chunk].raw[0]
	if _, ok := d.zone(sibling); !ok || &idx.chunks[paris.chunk].raw[0] != before {
		t.Errorf("%s, of Europe/Paris's chunk, decompressed it again", sibling)
	}
	if len(idx.chunks) < 8 {
		t.Errorf("%d chunks: a lookup decompresses an eighth of the database or more", len(idx.chunks))
	}
}

// Goroutines loading zones of the same and of different chunks, all at once from a
// fresh copy, each get their zone's bytes (run with -race).
func TestConcurrentLookups(t *testing.T) {
	ref := open(packed)
	names := ref.names()
	d := open(packed)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			<-start
			for k := range 24 {
				name := names[(g*37+k*11)%len(names)]
				if k%3 == 0 {
					name = "America/New_York"
				}
				got, ok := d.zone(name)
				want, _ := ref.zone(name)
				if !ok || !bytes.Equal(got, want) {
					t.Errorf("goroutine %d: %s is %d bytes (%v), want %d", g, name, len(got), ok, len(want))
				}
			}
		})
	}
	close(start)
	wg.Wait()
}
