package luascript

import (
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
)

// TestSettleScriptFollowsDecide: the settle script is decide.lua's functions, without
// its decision, then settle.lua; a decide.lua without the line fails every settle
// with an error that names it.
func TestSettleScriptFollowsDecide(t *testing.T) {
	src := settleScript.Source()
	if !strings.HasPrefix(src, decideSource[:strings.Index(decideSource, decideMain)]) || !strings.HasSuffix(src, settleSource) {
		t.Fatal("the settle script is not decide.lua's functions followed by settle.lua")
	}
	if strings.Contains(src, "local evaluate = {") {
		t.Fatal("the settle script holds decide.lua's decision")
	}
	if got := settleText("no such line", settleSource); !strings.Contains(got, "redis.error_reply") {
		t.Fatalf("without the line: %q, want a script that fails", got)
	}
}

// TestMarkerKeyInFirstCounterSlot: the marker holds the first counter's key whole, so
// its first brace is that key's hash tag.
func TestMarkerKeyInFirstCounterSlot(t *testing.T) {
	set, err := limiter.NewSet([]limiter.Rule{{Algorithm: limiter.Concurrency, Limit: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := []store.Counter{{Key: "{acme}k1", Set: set}, {Key: "{acme}k2", Set: set}}
	keys, args := SettleArgs(cs, store.Settlement{ID: "n-1", At: 5, Now: 7, Expires: 2_000_007, Delta: -1}, 0)
	marker := keys[len(keys)-1]
	if marker != "el:s:n-1:{acme}k1" || !strings.Contains(keys[0], "{acme}") {
		t.Fatalf("keys %q", keys)
	}
	if tail := args[len(args)-3:]; tail[0] != int64(5) || tail[1] != int64(-1) || tail[2] != int64(2000+60_000) {
		t.Fatalf("the settle arguments %v, want at 5, delta -1, a TTL of 2 s + the 1 min margin", tail)
	}
}
