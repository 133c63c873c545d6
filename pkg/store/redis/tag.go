package redis

import (
	"strings"

	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// slotKey returns key with its hash tag in front: "{acme}c1|4:acme|0|..." for a
// counter key of tenant acme (tenant.CounterKeyTenant), so that every key of one
// tenant, and every key of one decision, lands in one Redis Cluster hash slot. A key
// of another form is its own tag, braces left out ("{k}k"). The tag never holds a
// brace, so the key after it is recovered intact and two keys never share a name.
func slotKey(key string) string {
	tag, ok := tenant.CounterKeyTenant(key)
	if !ok || tag == "" || strings.ContainsAny(tag, "{}") {
		tag = noBraces.Replace(key)
		if tag == "" {
			tag = "_"
		}
	}
	return "{" + tag + "}" + key
}

var noBraces = strings.NewReplacer("{", "", "}", "")
