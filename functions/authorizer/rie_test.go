package main_test

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// build builds pkg's bootstrap for the host, with tag ("": none) besides lambda.norpc.
func build(tb testing.TB, pkg, tag string) string { return testenv.BuildBootstrap(tb, pkg, tag) }

// function is a bootstrap running under the Lambda runtime interface emulator.
type function struct{ *testenv.Lambda }

// startFunction runs bootstrap under the emulator with env (testenv.StartLambda).
func startFunction(tb testing.TB, bootstrap string, env map[string]string) *function {
	return &function{testenv.StartLambda(tb, bootstrap, env)}
}

func (f *function) invoke(tb testing.TB, payload []byte) ([]byte, time.Duration) {
	tb.Helper()
	return f.Invoke(tb, payload)
}

func (f *function) stop() { f.Stop() }

func waitFor(tb testing.TB, limit time.Duration, what string, cond func() bool) {
	tb.Helper()
	testenv.WaitFor(tb, limit, what, cond)
}

var (
	reportInit = regexp.MustCompile(`REPORT RequestId: \S+\s+Init Duration: ([0-9.]+) ms`)
	rapidInit  = regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`)
)

// initDurations waits (at most 5 s) for the emulator's report of the first invocation
// and returns the two init durations it logs, in milliseconds: "Init Duration" of the
// REPORT line (what `sam local invoke` prints) and the runtime's own init, from the
// start of the bootstrap to its first request for an event ("INIT REPORT durationMs").
func (f *function) initDurations(tb testing.TB) (report, runtime float64) {
	tb.Helper()
	waitFor(tb, 5*time.Second, "the emulator's REPORT line", func() bool { return reportInit.MatchString(f.Output()) })
	out := f.Output()
	report, _ = strconv.ParseFloat(reportInit.FindStringSubmatch(out)[1], 64)
	if m := rapidInit.FindStringSubmatch(out); m != nil {
		runtime, _ = strconv.ParseFloat(m[1], 64)
	}
	return report, runtime
}
