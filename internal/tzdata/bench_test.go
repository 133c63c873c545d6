package tzdata

import (
	"archive/zip"
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

// benchZone is the zone the first-lookup benchmarks load (internal/stdpeer's too).
const benchZone = "America/New_York"

// BenchmarkFirstLookup is the first zone lookup of a cold start on a system without a
// zone database (Lambda's provided.al2023), from a fresh copy each time: chunks is
// this package (the index parsed, one chunk decompressed), whole-stream the copy it
// embedded before (Go's zoneinfo.zip gzipped as one stream, decompressed whole). The
// standard library's time/tzdata is measured by internal/stdpeer's BenchmarkFirstLookup.
func BenchmarkFirstLookup(b *testing.B) {
	none := func(name string) (*time.Location, error) { return nil, errors.New("unknown time zone " + name) }
	b.Run("chunks", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := open(packed).load(benchZone, none); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("whole-stream", func(b *testing.B) {
		zoneinfo, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "time", "zoneinfo.zip"))
		if err != nil {
			b.Skipf("no zoneinfo.zip in GOROOT: %v", err)
		}
		var gz bytes.Buffer
		w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		w.Write(zoneinfo)
		w.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := wholeStreamLoad(gz.Bytes(), benchZone); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// wholeStreamLoad is a lookup in the copy this package embedded before its chunks:
// the whole of zoneinfo.zip, gzipped, decompressed to find one zone.
func wholeStreamLoad(compressed []byte, name string) (*time.Location, error) {
	gz, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(gz)
	if err != nil {
		return nil, err
	}
	db, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	f, err := db.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zone, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return time.LoadLocationFromTZData(name, zone)
}
