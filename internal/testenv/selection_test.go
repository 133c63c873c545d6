package testenv_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// TestServiceSelection: scripts/services.sh starts what EDGELIMIT_SERVICES names
// (redis with upstash, which needs it), everything by default, and refuses an unknown
// name before starting anything.
func TestServiceSelection(t *testing.T) {
	script := filepath.Join(testenv.ModuleRoot(t), "scripts", "services.sh")
	tests := []struct{ services, want, wantErr string }{
		{"", "redis upstash dynamodb rie node cluster", ""},
		{"all", "redis upstash dynamodb rie node cluster", ""},
		{"cluster", "cluster", ""},
		{"upstash", "upstash redis", ""},
		{"dynamodb", "dynamodb", ""},
		{"redis,dynamodb", "redis dynamodb", ""},
		{"dynamo", "", `unknown service "dynamo"`},
	}
	for _, tt := range tests {
		t.Run(tt.services, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", `source "$1" && check_services && echo "$SERVICES"`, "bash", script)
			cmd.Env = append(cmd.Environ(), "EDGELIMIT_SERVICES="+tt.services)
			out, err := cmd.CombinedOutput()
			got := strings.Join(strings.Fields(string(out)), " ")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(got, tt.wantErr) {
					t.Errorf("EDGELIMIT_SERVICES=%q: %v, %q; want an error %q", tt.services, err, got, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("EDGELIMIT_SERVICES=%q: %v, %q; want %q", tt.services, err, got, tt.want)
			}
		})
	}
}
