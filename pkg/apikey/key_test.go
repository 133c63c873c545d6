package apikey

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for range 500 {
		k := New()
		if _, err := Parse(k.Reveal()); err != nil {
			t.Fatalf("a new key does not parse: %v", err)
		}
		if !ValidKeyID(k.ID()) || !strings.HasPrefix(k.Reveal(), "elk_"+k.ID()+"_") {
			t.Fatalf("key id %q", k.ID())
		}
		secret, err := secretEncoding.DecodeString(k.Reveal()[len(Scheme)+KeyIDLen+1:])
		if err != nil || len(secret) != SecretBytes {
			t.Fatalf("secret of %d bytes: %v", len(secret), err)
		}
		if seen[k.Reveal()] || seen[k.ID()] {
			t.Fatal("a key or key id repeated")
		}
		seen[k.Reveal()], seen[k.ID()] = true, true
	}
}

func TestParse(t *testing.T) {
	good := "elk_ab12cd34_" + strings.Repeat("A", 43)
	tests := []struct {
		name, in, wantErr string // wantErr "" means valid
	}{
		{"valid", good, ""},
		{"valid with - and _ in the secret", "elk_0000zzzz_-_" + strings.Repeat("Q", 40) + "A", ""},
		{"empty", "", "0 characters"},
		{"too short", good[:55], "55 characters"},
		{"too long", good + "A", "57 characters"},
		{"other scheme", "elx" + good[3:], "does not start"},
		{"upper-case key id", "elk_AB12CD34_" + strings.Repeat("A", 43), "key id"},
		{"key id with a dash", "elk_ab12-d34_" + strings.Repeat("A", 43), "key id"},
		{"no separator", "elk_ab12cd34x" + strings.Repeat("A", 43), "character 13"},
		{"standard base64", "elk_ab12cd34_+" + strings.Repeat("A", 42), "base64url"},
		{"padding", "elk_ab12cd34_" + strings.Repeat("A", 42) + "=", "base64url"},
		{"non-canonical last character", "elk_ab12cd34_" + strings.Repeat("A", 42) + "B", "base64url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Parse(tt.in)
			if tt.wantErr == "" {
				if err != nil || k.Reveal() != tt.in {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Parse: %v, want ErrFormat mentioning %q", err, tt.wantErr)
			}
			if len(tt.in) > 20 && strings.Contains(err.Error(), tt.in[13:]) {
				t.Errorf("the error quotes the secret: %v", err)
			}
		})
	}
}

func TestHash(t *testing.T) {
	if got := Hash(""); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("Hash(\"\") = %s", got)
	}
	k := New()
	h := k.Hash()
	if !ValidHash(h) || h != Hash(k.Reveal()) {
		t.Errorf("hash %q", h)
	}
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"same", h, h, true},
		{"one character differs", h, h[:63] + string("01"[(h[63]-'0'+1)%2]), false},
		{"prefix", h, h[:32], false},
		{"empty", h, "", false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Equal = %v", tt.name, got)
		}
	}
	for _, bad := range []string{"", h[:63], strings.ToUpper(h), h[:63] + "g", k.Reveal()} {
		if ValidHash(bad) {
			t.Errorf("ValidHash(%.10q) = true", bad)
		}
	}
}

func TestKeyRedacts(t *testing.T) {
	k := New()
	secret := k.Reveal()[len(Scheme)+KeyIDLen+1:]
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("made", "key", k)
	asJSON, _ := json.Marshal(struct{ Key Key }{k})
	asText, _ := k.MarshalText()
	outputs := map[string]string{
		"slog": logged.String(), "json": string(asJSON), "text": string(asText),
		"String": k.String(), "GoString": k.GoString(),
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"} {
		outputs[verb] = fmt.Sprintf(verb, k)
		outputs[verb+" in a struct"] = fmt.Sprintf(verb, struct{ K Key }{k})
		outputs[verb+" pointer"] = fmt.Sprintf(verb, &k)
	}
	for name, out := range outputs {
		if strings.Contains(out, secret) || strings.Contains(out, k.Reveal()) {
			t.Errorf("%s shows the key: %s", name, out)
		}
	}
	if want := "elk_" + k.ID() + "_…"; k.String() != want || !strings.Contains(string(asJSON), want) {
		t.Errorf("String %q, JSON %s, want %q", k.String(), asJSON, want)
	}
	if got := (Key{}).String(); got != "elk_<none>" {
		t.Errorf("zero Key prints %q", got)
	}
}

func TestRecord(t *testing.T) {
	k, rec := Generate("acme", 1_000)
	if rec.KeyID != k.ID() || rec.TenantID != "acme" || rec.Hash != k.Hash() || rec.Prefix != k.Prefix() || rec.Created != 1_000 {
		t.Fatalf("record %+v", rec)
	}
	if err := rec.Validate(); err != nil {
		t.Fatal(err)
	}
	if !rec.Matches(Hash(k.Reveal())) || rec.Matches(Hash(k.Reveal()+"x")) {
		t.Error("Matches")
	}
	revoked := rec.Revoke(2_000)
	if !revoked.Revoked || revoked.RevokedAt != 2_000 || revoked.Revoke(3_000).RevokedAt != 2_000 {
		t.Errorf("Revoke: %+v", revoked)
	}
	bad := []struct {
		name string
		edit func(*Record)
		want string
	}{
		{"no tenant", func(r *Record) { r.TenantID = "" }, "tenant_id"},
		{"key id", func(r *Record) { r.KeyID = "ABC" }, "key_id"},
		{"raw key as the hash", func(r *Record) { r.Hash = k.Reveal() }, "hash"},
		{"prefix", func(r *Record) { r.Prefix = "elk_x" }, "prefix"},
		{"revoked_at without revoked", func(r *Record) { r.RevokedAt = 5 }, "revoked_at"},
	}
	for _, tt := range bad {
		r := rec
		tt.edit(&r)
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v", tt.name, err)
		}
		if err != nil && strings.Contains(err.Error(), k.Reveal()) {
			t.Errorf("%s: the error shows the key", tt.name)
		}
	}
}
