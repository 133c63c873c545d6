package config_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
)

// TestReservationSecret: EDGELIMIT_RESERVATION_SECRET is base64 of at least 32 bytes,
// and reaches the gate's configuration; a bad one is refused, naming the variable.
func TestReservationSecret(t *testing.T) {
	secret := bytes.Repeat([]byte{0xfb, 0xff, 0x01}, 11) // 33 bytes with '+' and '/' in standard base64
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		c, err := config.Load(envOf(map[string]string{"EDGELIMIT_RESERVATION_SECRET": enc.EncodeToString(secret)}))
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Build(context.Background(), config.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.GateConfig(st).ReservationSecret; !bytes.Equal(got, secret) {
			t.Errorf("secret %x, want %x", got, secret)
		}
	}
	bad := []map[string]string{
		{"EDGELIMIT_RESERVATION_SECRET": base64.StdEncoding.EncodeToString(secret[:31])},
		{"EDGELIMIT_RESERVATION_SECRET": "not base64!"},
		{"EDGELIMIT_RESERVATION_SECRET": base64.StdEncoding.EncodeToString(secret), "EDGELIMIT_RESERVATION_SECRET_ARN": "arn:x"},
	}
	for _, env := range bad {
		if _, err := config.Load(envOf(env)); err == nil || !strings.Contains(err.Error(), "EDGELIMIT_RESERVATION_SECRET") {
			t.Errorf("%v: %v, want an error naming the variable", env, err)
		}
	}
	if err := config.CheckNames([]string{"EDGELIMIT_RESERVATION_SECRET=x", "EDGELIMIT_RESERVATION_SECRET_ARN=y"}); err != nil {
		t.Errorf("CheckNames: %v", err)
	}
}

// TestReservationSecretFromSecretsManager: with EDGELIMIT_RESERVATION_SECRET_ARN the
// secret is the SecretString, read once by Build with a signed GetSecretValue; a
// secret shorter than 32 bytes is refused.
func TestReservationSecretFromSecretsManager(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	value, reads := strings.Repeat("k", 64), 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reads++
		if r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" || !strings.Contains(string(b), "secret:reservations") ||
			!strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
			w.WriteHeader(400)
			io.WriteString(w, `{"__type": "ResourceNotFoundException", "message": "no such secret"}`)
			return
		}
		io.WriteString(w, `{"ARN": "x", "Name": "reservations", "SecretString": "`+value+`"}`)
	}))
	defer srv.Close()
	c, err := config.Load(envOf(map[string]string{"EDGELIMIT_RESERVATION_SECRET_ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:reservations",
		"AWS_ENDPOINT_URL_SECRETS_MANAGER": srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Build(context.Background(), config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.GateConfig(st).ReservationSecret); got != value || reads != 1 {
		t.Errorf("secret %q after %d reads, want the SecretString after 1", got, reads)
	}
	value = strings.Repeat("k", 31)
	if _, err := c.Build(context.Background(), config.Options{}); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Errorf("a 31-byte secret: %v, want refused", err)
	}
}
