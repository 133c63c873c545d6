package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/store/memory"
)

// The example file's demo keys: public, for `edgelimit dev` and the docs only.
const (
	exampleFile       = "../../examples/tenants.json"
	exampleDemoKey    = "elk_xxh64u27_TBaYVHqi6DTHa-Wklpz1R9d3Wkuf7AXtXmfyjIqsZ24"
	examplePartnerKey = "elk_0ylwllrz_tUdub5DE-BqMSUltfE4iu0iq_jk4g9y3u4oS3DwC3bk"
)

func TestLoadExample(t *testing.T) {
	s, err := memory.LoadFile(exampleFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	demo, err := s.Get(ctx, "demo")
	if err != nil || demo.Version != 1 || demo.Timezone != "Asia/Tokyo" || len(demo.Routes) != 2 || !demo.Routes[1].Anonymous {
		t.Fatalf("demo tenant %+v, %v", demo, err)
	}
	for key, tenantID := range map[string]string{exampleDemoKey: "demo", examplePartnerKey: "partner"} {
		rec, err := s.LookupKey(ctx, apikey.Hash(key))
		if err != nil || rec.TenantID != tenantID || rec.Prefix != apikey.Prefix(key[4:12]) {
			t.Errorf("example key of %s: %+v, %v", tenantID, rec, err)
		}
	}
	if _, err := demo.Sets(); err != nil {
		t.Error(err)
	}
}

func TestFileErrors(t *testing.T) {
	const (
		rule   = `{"algorithm": "token_bucket", "limit": 10, "period": "1s"}`
		hash   = `"02e590e011671bc5c5ec467d60a489f50fc176208d35f537289d9811d8808cfd"`
		tenA   = `{"id": "a", "rules": [` + rule + `]}`
		keyA   = `{"tenant_id": "a", "key_id": "ab12cd34", "hash": ` + hash + `}`
		rawKey = exampleDemoKey
	)
	tests := []struct {
		name, file string
		want       []string // substrings of the error
		wantField  string   // the FieldError's field, "" when none
	}{
		{"invalid rule", `{"tenants": [` + tenA + `, {"id": "b", "rules": [{"algorithm": "token_bucket", "limit": 0, "period": "1s"}]}]}`,
			[]string{`tenants[1] (tenant "b"): rules[0].limit = 0`}, "rules[0].limit"},
		{"invalid route", `{"tenants": [{"id": "b", "rules": [` + rule + `], "routes": [{"method": "GET", "resource": "x", "rules": [` + rule + `]}]}]}`,
			[]string{`tenants[0] (tenant "b"): routes[0].resource`}, "routes[0].resource"},
		{"unknown tenant field", `{"tenants": [{"id": "b", "rules": [` + rule + `], "zone": "UTC"}]}`,
			[]string{`tenants[0] (tenant "b"): zone: unknown field`}, "zone"},
		{"repeated tenant", `{"tenants": [` + tenA + `, ` + tenA + `]}`, []string{`tenants[1] (tenant "a"): id = "a": repeats tenants[0]`}, "id"},
		{"unknown top-level field", `{"tenants": [], "users": []}`, []string{`unknown field "users"`}, ""},
		{"trailing data", `{"tenants": []} {}`, []string{"data after"}, ""},
		{"key for no tenant", `{"tenants": [` + tenA + `], "keys": [{"tenant_id": "b", "key_id": "ab12cd34", "hash": ` + hash + `}]}`,
			[]string{`keys[0] (key "ab12cd34" of tenant "b"): tenant_id = "b": names no tenant`}, "tenant_id"},
		{"raw key instead of a hash", `{"tenants": [` + tenA + `], "keys": [{"tenant_id": "a", "key_id": "ab12cd34", "hash": "` + rawKey + `"}]}`,
			[]string{`keys[0] (key "ab12cd34" of tenant "a"): hash: must be 64 lowercase hex`}, "hash"},
		{"raw key field", `{"tenants": [` + tenA + `], "keys": [{"tenant_id": "a", "key": "` + rawKey + `"}]}`,
			[]string{`keys[0]: key: unknown field`}, "key"},
		{"bad key id", `{"tenants": [` + tenA + `], "keys": [{"tenant_id": "a", "key_id": "AB12CD34", "hash": ` + hash + `}]}`,
			[]string{`key_id = "AB12CD34"`}, "key_id"},
		{"repeated hash", `{"tenants": [` + tenA + `], "keys": [` + keyA + `, {"tenant_id": "a", "key_id": "zz12cd34", "hash": ` + hash + `}]}`,
			[]string{`keys[1] (key "zz12cd34" of tenant "a"): hash: repeats keys[0]`}, "hash"},
		{"repeated key id", `{"tenants": [` + tenA + `], "keys": [` + keyA + `, {"tenant_id": "a", "key_id": "ab12cd34", "hash": "` + strings.Repeat("0", 64) + `"}]}`,
			[]string{`keys[1] (key "ab12cd34" of tenant "a"): key_id = "ab12cd34": repeats keys[0]`}, "key_id"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "tenants.json")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := memory.LoadFile(path, nil)
			var fileErr *store.FileError
			if !errors.As(err, &fileErr) || !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("LoadFile: %v, want a *FileError naming the file", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), rawKey[13:]) {
				t.Errorf("the error shows a raw key: %v", err)
			}
			var fe *limiter.FieldError
			if tt.wantField != "" && (!errors.As(err, &fe) || fe.Field != tt.wantField) {
				t.Errorf("field: got %v, want %q", fe, tt.wantField)
			}
		})
	}
}

func TestLoadFileMissing(t *testing.T) {
	if _, err := memory.LoadFile(filepath.Join(t.TempDir(), "none.json"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadFile of a missing file: %v", err)
	}
}
