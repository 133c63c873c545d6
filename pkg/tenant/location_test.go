package tenant

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// zoneChildEnv, set, makes TestZonesIgnoreTheSystem the child process that loads zones
// under a bogus ZONEINFO.
const zoneChildEnv = "EDGELIMIT_TEST_ZONE_CHILD"

// The system's zone files never decide a window: a process whose ZONEINFO says
// Europe/Paris is Tokyo's zone (as a stale or foreign image might) still gets Paris
// from LoadLocation, while the standard library's loader takes the system's word. The
// child is a fresh process, since time.LoadLocation reads ZONEINFO once.
func TestZonesIgnoreTheSystem(t *testing.T) {
	if os.Getenv(zoneChildEnv) != "" {
		checkZonesUnderBogusSystem(t)
		return
	}
	tokyo, err := zoneFile("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "Europe"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Europe", "Paris"), tokyo, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestZonesIgnoreTheSystem$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), zoneChildEnv+"=1", "ZONEINFO="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestZonesIgnoreTheSystem") {
		t.Fatalf("child under ZONEINFO=%s: %v\n%s", dir, err, out)
	}
}

func checkZonesUnderBogusSystem(t *testing.T) {
	winter := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	system, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	if _, off := winter.In(system).Zone(); off != 9*3600 {
		t.Fatalf("time.LoadLocation under the bogus ZONEINFO: offset %d, want Tokyo's 32400 (the setup is wrong)", off)
	}
	loc, err := LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	if name, off := winter.In(loc).Zone(); name != "CET" || off != 3600 {
		t.Errorf("LoadLocation(Europe/Paris) in January: %s %+d, want CET +3600 from the embedded database", name, off)
	}
}

// The embedded database is the toolchain's lib/time/zoneinfo.zip, file for file (go
// generate refreshes it); without the toolchain's copy there is nothing to compare.
func TestEmbeddedZonesAreGos(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	z, err := zip.OpenReader(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Skipf("the toolchain's zoneinfo.zip: %v", err)
	}
	defer z.Close()
	var embedded int
	err = fs.WalkDir(zoneinfo, "zoneinfo", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			embedded++
		}
		return err
	})
	if err != nil || embedded != len(z.File) {
		t.Fatalf("%d zones embedded (%v), %s's zoneinfo.zip has %d: run go generate ./pkg/tenant", embedded, err, runtime.Version(), len(z.File))
	}
	for _, f := range z.File {
		want, err := fs.ReadFile(z, f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := zoneFile(f.Name); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: the embedded file differs from %s's (%v): run go generate ./pkg/tenant", f.Name, runtime.Version(), err)
		}
	}
}

func TestLoadLocation(t *testing.T) {
	tests := []struct {
		name, zone string
		wantErr    bool
		wantOffset int // at 2026-07-01 12:00 UTC
	}{
		{name: "utc is time.UTC", zone: "UTC"},
		{name: "summer time", zone: "America/New_York", wantOffset: -4 * 3600},
		{name: "half hour", zone: "Asia/Kolkata", wantOffset: 5*3600 + 1800},
		{name: "link", zone: "Etc/GMT-3", wantOffset: 3 * 3600},
		{name: "unknown", zone: "Mars/Olympus", wantErr: true},
		{name: "a folder", zone: "America", wantErr: true},
		{name: "local", zone: "Local", wantErr: true},
		{name: "dot dot", zone: "../etc/passwd", wantErr: true},
	}
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := LoadLocation(tt.zone)
			if (err != nil) != tt.wantErr {
				t.Fatalf("LoadLocation(%q) error = %v, want error %v", tt.zone, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if _, off := at.In(loc).Zone(); off != tt.wantOffset || loc.String() != tt.zone {
				t.Errorf("LoadLocation(%q) = %s at offset %d, want %s at %d", tt.zone, loc, off, tt.zone, tt.wantOffset)
			}
		})
	}
	if loc, _ := LoadLocation("UTC"); loc != time.UTC {
		t.Errorf("LoadLocation(UTC) = %p, want time.UTC", loc)
	}
}

// zoneFile returns the zone file of name in zoneinfo.
func zoneFile(name string) ([]byte, error) {
	return zoneinfo.ReadFile("zoneinfo/" + name)
}
