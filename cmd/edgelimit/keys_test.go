package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
)

func runCapture(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestKeysNew(t *testing.T) {
	code, stdout, stderr := runCapture(t, "", "keys", "new", "--tenant", "acme")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout %q: want the key, then the file entry", stdout)
	}
	key, err := apikey.Parse(lines[0])
	if err != nil {
		t.Fatalf("the first line is not a key: %v", err)
	}
	var entry store.FileKey
	dec := json.NewDecoder(strings.NewReader(lines[1]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entry); err != nil {
		t.Fatalf("entry %s: %v", lines[1], err)
	}
	if entry.TenantID != "acme" || entry.KeyID != key.ID() || entry.Hash != apikey.Hash(lines[0]) {
		t.Errorf("entry %+v for key id %s", entry, key.ID())
	}
	if strings.Contains(lines[1], lines[0][13:]) || strings.Contains(stderr, lines[0][13:]) {
		t.Error("the raw key appears outside the first line")
	}
	// The entry is what a tenants file takes.
	file := `{"tenants": [{"id": "acme", "rules": [{"algorithm": "token_bucket", "limit": 1, "period": "1s"}]}], "keys": [` + lines[1] + `]}`
	if _, err := store.DecodeFile([]byte(file)); err != nil {
		t.Errorf("the entry does not load: %v", err)
	}
}

func TestKeysHash(t *testing.T) {
	key := apikey.New().Reveal()
	want := apikey.Hash(key) + "\n"
	tests := []struct {
		name, stdin string
		args        []string
		wantCode    int
		wantOut     string
		wantErr     string
	}{
		{"argument", "", []string{key}, 0, want, ""},
		{"stdin with a newline", key + "\n", nil, 0, want, ""},
		{"stdin with spaces and CRLF", "  " + key + " \r\n", nil, 0, want, ""},
		{"stdin without a newline", key, nil, 0, want, ""},
		{"only the first line", key + "\nsecond\n", nil, 0, want, ""},
		{"one character short", "", []string{key[:55]}, 2, "", "55 characters"},
		{"not a key", "hunter2-hunter2-hunter2-hunter2-hunter2-hunter2-hunter2-", nil, 2, "", "does not start"},
		{"empty stdin", "", nil, 2, "", "0 characters"},
		{"two arguments", "", []string{key, key}, 2, "", "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCapture(t, tt.stdin, append([]string{"keys", "hash"}, tt.args...)...)
			if code != tt.wantCode || stdout != tt.wantOut || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tt.wantCode, tt.wantOut, tt.wantErr)
			}
			if strings.Contains(stderr, key[13:]) || tt.wantCode != 0 && strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr echoes the input: %q", stderr)
			}
		})
	}
}

func TestKeysUsage(t *testing.T) {
	for _, args := range [][]string{{"keys"}, {"keys", "rotate"}, {"keys", "new"}, {"keys", "new", "--tenant", "Bad Id"}, {"keys", "new", "--tenant", "a", "extra"}} {
		if code, stdout, stderr := runCapture(t, "", args...); code != 2 || stdout != "" || stderr == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want usage and exit 2", args, code, stdout, stderr)
		}
	}
	if _, stdout, _ := runCapture(t, "", "help"); !strings.Contains(stdout, "keys") {
		t.Errorf("usage does not list keys: %s", stdout)
	}
}
