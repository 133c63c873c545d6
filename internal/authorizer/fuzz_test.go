package authorizer_test

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/authorizer"
)

// FuzzInvoke feeds arbitrary payloads to the handler: it never panics, answers either a
// well-formed response, Unauthorized, or an error that says what is wrong, and never
// echoes a key. The seed corpus (testdata/fuzz/FuzzInvoke) holds every sample event.
func FuzzInvoke(f *testing.F) {
	for _, file := range eventFiles(f) {
		f.Add(readFile(f, file))
	}
	hs := newHarnessTo(f, "", nil, io.Discard)
	f.Fuzz(func(t *testing.T, payload []byte) {
		out, err := hs.invoke(t, payload)
		if err != nil {
			if !errors.Is(err, authorizer.ErrUnauthorized) && !strings.HasPrefix(err.Error(), "authorizer: ") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
			if strings.Contains(err.Error(), demoKey) {
				t.Fatalf("error %q holds the key", err)
			}
			return
		}
		var resp struct {
			PolicyDocument *struct{ Statement []struct{ Effect string } }
			IsAuthorized   *bool
			Context        map[string]any
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("reply %s: %v", out, err)
		}
		if (resp.PolicyDocument == nil) == (resp.IsAuthorized == nil) {
			t.Fatalf("reply %s is neither a policy nor a simple response", out)
		}
		for k, typ := range contextTypes {
			if got := jsonType(resp.Context[k]); got != typ {
				t.Fatalf("context %s: %s, want %s", k, got, typ)
			}
		}
	})
}
