package testenv

import (
	"net"
	"strings"
	"testing"
)

// TestStartLambdaRetriesAPortTaken: a port taken between its choice and the emulator's
// bind (another process's connection took it) starts the emulator again on new ports,
// instead of waiting 20 s for an emulator that exited (BenchmarkColdStart, 240 starts,
// met it once).
func TestStartLambdaRetriesAPortTaken(t *testing.T) {
	RIE(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	calls := 0
	pickAddr = func(tb testing.TB) string {
		calls++
		if calls == 2 { // the first start's runtime API address
			return taken.Addr().String()
		}
		return freeAddr(tb)
	}
	defer func() { pickAddr = freeAddr }()
	l := StartLambda(t, BuildBootstrap(t, "../authorizer/testdata/hello"), nil)
	if calls != 4 {
		t.Errorf("%d addresses chosen, want 4 (two starts)", calls)
	}
	if body, _ := l.Invoke(t, []byte(`{}`)); len(body) == 0 || strings.Contains(l.Output(), "address already in use") {
		t.Errorf("the second start's function: %q, output:\n%s", body, l.Output())
	}
}
