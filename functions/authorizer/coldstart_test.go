package main_test

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkColdStart starts the stripped bootstrap under the emulator b.N times and
// invokes it once each time, next to a hello-world aws-lambda-go authorizer built the
// same way (pkg/authorizer/testdata/hello). It reports the binary's size, the "Init
// Duration" of the emulator's REPORT line (init-ms), the runtime's own init as the
// emulator logs it (runtime-init-ms: from exec to the first request for an event),
// and the first invocation's round trip (first-ms). Run it with -benchtime=5x.
func BenchmarkColdStart(b *testing.B) {
	tenants, err := filepath.Abs(filepath.Join(eventsDir, "tenants.json"))
	if err != nil {
		b.Fatal(err)
	}
	fns := []struct{ name, pkg string }{
		{"edgelimit", "."},
		{"hello", "../../pkg/authorizer/testdata/hello"},
	}
	for _, fn := range fns {
		b.Run(fn.name, func(b *testing.B) {
			bootstrap := build(b, fn.pkg, fn.name)
			st, err := os.Stat(bootstrap)
			if err != nil {
				b.Fatal(err)
			}
			payload := readEvent(b, "rest-valid-key")
			var report, runtime, first float64
			for b.Loop() {
				f := startFunction(b, bootstrap, map[string]string{"EDGELIMIT_BACKEND": "memory", "EDGELIMIT_TENANTS_FILE": tenants})
				_, d := f.invoke(b, payload)
				r, rt := f.initDurations(b)
				f.stop()
				report, runtime, first = report+r, runtime+rt, first+float64(d.Microseconds())/1000
			}
			n := float64(b.N)
			b.ReportMetric(float64(st.Size()), "bootstrap-bytes")
			b.ReportMetric(report/n, "init-ms")
			b.ReportMetric(runtime/n, "runtime-init-ms")
			b.ReportMetric(first/n, "first-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}
