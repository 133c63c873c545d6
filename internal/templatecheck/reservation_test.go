package templatecheck

import (
	"maps"
	"slices"
	"testing"

	"github.com/edgelimit/edgelimit/internal/config"
)

// TestBothFunctionsReadTheReservationSecret: the stack makes the reservation secret
// (a generated string, so no one has to write it), and every authorizer function and
// the admin function name it in EDGELIMIT_RESERVATION_SECRET_ARN and may read it
// (secretsmanager:GetSecretValue on it): the authorizer seals reservations, the admin
// API settles them, and a secret only one of them had would refuse every settle.
func TestBothFunctionsReadTheReservationSecret(t *testing.T) {
	tmpl := load(t)
	secret := mustResource(t, tmpl, reservationSecret, "AWS::SecretsManager::Secret")
	if gen := asMap(secret.Properties["GenerateSecretString"]); gen == nil || gen["PasswordLength"] == nil {
		t.Errorf("%s: GenerateSecretString with a PasswordLength, want a generated secret", reservationSecret)
	}
	functions := append(slices.Sorted(maps.Values(authorizers)), adminFunction)
	for _, id := range functions {
		fn := mustResource(t, tmpl, id, "AWS::Serverless::Function")
		v := asMap(dig(fn.Properties, "Environment", "Variables"))[config.EnvReservationSecretARN]
		if f, arg, ok := intrinsic(v); !ok || f != "Ref" || asString(arg) != reservationSecret {
			t.Errorf("%s: %s = %v, want !Ref %s", id, config.EnvReservationSecretARN, v, reservationSecret)
		}
		if got := grants(t, tmpl, id)["Ref "+reservationSecret]; !slices.Equal(got, []string{"secretsmanager:GetSecretValue"}) {
			t.Errorf("%s may do %v on %s, want [secretsmanager:GetSecretValue]", id, got, reservationSecret)
		}
	}
}
