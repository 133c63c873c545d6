package config

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// The reservation secret's variables: the secret itself (base64), or the Secrets
// Manager secret that holds it (its SecretString, at least 32 bytes, used as is).
const (
	EnvReservationSecret    = "EDGELIMIT_RESERVATION_SECRET"
	EnvReservationSecretARN = "EDGELIMIT_RESERVATION_SECRET_ARN"
)

// parseReservation reads EnvReservationSecret (standard or URL base64, padded or not)
// and EnvReservationSecretARN: at most one of them.
func (c *Config) parseReservation(get func(string) string) error {
	raw, arn := get(EnvReservationSecret), get(EnvReservationSecretARN)
	if raw != "" && arn != "" {
		return fmt.Errorf("config: set %s or %s, not both", EnvReservationSecret, EnvReservationSecretARN)
	}
	c.ReservationSecretARN = arn
	if raw == "" {
		return nil
	}
	trimmed := strings.TrimRight(raw, "=")
	secret, err := base64.RawStdEncoding.DecodeString(trimmed)
	if err != nil {
		secret, err = base64.RawURLEncoding.DecodeString(trimmed)
	}
	if err != nil {
		return fmt.Errorf("config: %s is not base64: %w", EnvReservationSecret, err)
	}
	if len(secret) < gate.MinSecretBytes {
		return fmt.Errorf("config: %s holds %d bytes, at least %d are needed", EnvReservationSecret, len(secret), gate.MinSecretBytes)
	}
	c.ReservationSecret = secret
	return nil
}

// reservationSecret returns the reservation secret: EnvReservationSecret's, or the one
// read from Secrets Manager (once, at Build); nil when neither is set.
func (c Config) reservationSecret(ctx context.Context, opts Options) ([]byte, error) {
	if c.ReservationSecretARN == "" {
		return c.ReservationSecret, nil
	}
	s, err := c.readSecret(ctx, opts, EnvReservationSecretARN, c.ReservationSecretARN)
	if err != nil {
		return nil, err
	}
	if len(s) < gate.MinSecretBytes {
		return nil, fmt.Errorf("config: %s: the secret holds %d bytes, at least %d are needed", EnvReservationSecretARN, len(s), gate.MinSecretBytes)
	}
	return []byte(s), nil
}
