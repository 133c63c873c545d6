package templatecheck

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// samconfig.toml makes `sam build && sam deploy --guided` the whole deployment: a
// default stack name, CAPABILITY_IAM (the functions' roles), a managed artifacts
// bucket, a change set to confirm, and overrides that the template accepts.
func TestSamconfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(t), "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := parseSimpleTOML(t, data)
	want := map[string]string{
		"version":                                     "0.1",
		"default.deploy.parameters.stack_name":        `"edgelimit"`,
		"default.deploy.parameters.capabilities":      `"CAPABILITY_IAM"`,
		"default.deploy.parameters.resolve_s3":        "true",
		"default.deploy.parameters.confirm_changeset": "true",
		"default.build.parameters.cached":             "true",
		"default.build.parameters.parallel":           "true",
	}
	for key, v := range want {
		if cfg[key] != v {
			t.Errorf("samconfig.toml: %s = %q, want %s", key, cfg[key], v)
		}
	}
	params := asMap(load(t)["Parameters"])
	overrides := regexp.MustCompile(`"([A-Za-z0-9]+)=([^"]*)"`).FindAllStringSubmatch(cfg["default.deploy.parameters.parameter_overrides"], -1)
	if len(overrides) == 0 {
		t.Error("samconfig.toml: no parameter_overrides")
	}
	for _, o := range overrides {
		name, value := o[1], o[2]
		p := asMap(params[name])
		if p == nil {
			t.Errorf("samconfig.toml overrides %s, which is not a template parameter", name)
			continue
		}
		if values := asStrings(p["AllowedValues"]); len(values) > 0 && !slices.Contains(values, value) {
			t.Errorf("samconfig.toml: %s=%s is not in %v", name, value, values)
		}
		if pattern := asString(p["AllowedPattern"]); pattern != "" && !regexp.MustCompile("^(?:"+pattern+")$").MatchString(value) {
			t.Errorf("samconfig.toml: %s=%s does not match %s", name, value, pattern)
		}
	}
}

// parseSimpleTOML reads the subset of TOML samconfig.toml uses: [tables], key = value
// (a value's text as written), and arrays spanning lines, joined on one line.
func parseSimpleTOML(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	table, pending, value := "", "", ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending != "" { // inside a multi-line array
			if !strings.HasPrefix(line, "#") {
				value += " " + line
			}
			if strings.HasPrefix(line, "]") {
				out[pending], pending = value, ""
			}
			continue
		}
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			table = strings.Trim(line, "[] ") + "."
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("samconfig.toml: cannot read %q", line)
			}
			key, v := table+strings.TrimSpace(k), strings.TrimSpace(v)
			if v == "[" || strings.HasPrefix(v, "[") && !strings.HasSuffix(v, "]") {
				pending, value = key, v
				continue
			}
			out[key] = v
		}
	}
	return out
}
