package upstash

import (
	"encoding/base64"
	"strings"
	"testing"
)

// A reply of the wrong shape to the reads of a tenant's keys (HMGET and HGETALL in a
// transaction) or of tenants (HMGET in a pipeline) holding key records is an error
// that gives the reply's shape, not the records.
func TestWrongShapesQuoteNoRecords(t *testing.T) {
	const marker = "SECRET-MARKER"
	rec := base64.StdEncoding.EncodeToString([]byte(`{"key_id":"` + marker + `"}`))
	tests := []struct{ name, body, want string }{
		{"HMGET of three", `[{"result":["` + rec + `","` + rec + `","1"]},{"result":[]}]`, "HMGET version keyrev: array of 3 [string of 26 bytes, string of 26 bytes, string of 1 bytes]"},
		{"HGETALL of odd length", `[{"result":["MQ==","MQ=="]},{"result":["` + rec + `"]}]`, "HGETALL: array of 1 [string of 26 bytes]"},
		{"HGETALL of integers", `[{"result":["MQ==","MQ=="]},{"result":[1,2]}]`, "HGETALL: array of 2 [integer, integer]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _ := fakeStore(t, reply(200, tt.body))
			tenants := NewTenants(st.client, TenantsConfig{})
			_, err := tenants.ListKeys(t.Context(), "acme")
			if !isMalformed(err) || strings.Contains(err.Error(), marker) || strings.Contains(err.Error(), rec[4:20]) ||
				!strings.Contains(err.Error(), tt.want) {
				t.Errorf("ListKeys: %v, want a malformed reply saying %q and no record", err, tt.want)
			}
		})
	}
	st, _ := fakeStore(t, reply(200, `[{"result":["`+rec+`"]}]`))
	_, err := NewTenants(st.client, TenantsConfig{}).Get(t.Context(), "acme")
	if !isMalformed(err) || strings.Contains(err.Error(), marker) || !strings.Contains(err.Error(), "HMGET doc version: array of 1 [string of 26 bytes]") {
		t.Errorf("Get: %v, want a malformed reply giving the shape and no record", err)
	}
}
