package tenant_test

import (
	"errors"
	"testing"

	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// TestCheckResourcesRefusesAGreedyVariableNotLast: API Gateway refuses a resource whose
// greedy variable is not its last segment, and edgelimit dev gives no request such a
// resource, so a route on one could never apply: CheckResources refuses it, naming the
// route's resource. Decode still reads it, as a tenant stored before the check.
func TestCheckResourcesRefusesAGreedyVariableNotLast(t *testing.T) {
	rule := `[{"name": "r", "algorithm": "fixed_window", "limit": 10, "period": "1m"}]`
	tests := map[string]bool{ // resource: refused
		"/files/{proxy+}": false, "/{proxy+}": false, "/a/{id}/{proxy+}": false, tenant.DefaultRoute: false,
		"/a/{proxy+}x/b": false, // a literal segment
		"/a/{proxy+}/b":  true, "/{proxy+}/b": true, "/{a+}/{b+}": true,
	}
	for resource, refused := range tests {
		t.Run(resource, func(t *testing.T) {
			method := "GET"
			if resource == tenant.DefaultRoute {
				method = tenant.MethodAny
			}
			data := `{"id": "acme", "rules": ` + rule + `, "routes": [{"method": "POST", "resource": "/ok", "rules": ` + rule + `},
				{"method": "` + method + `", "resource": "` + resource + `", "rules": ` + rule + `}]}`
			tn, err := tenant.Decode([]byte(data))
			if err != nil {
				t.Fatalf("Decode: %v; want it read", err)
			}
			plan := tenant.Plan{ID: "pro", Rules: tn.Rules, Routes: tn.Routes}
			for what, err := range map[string]error{"tenant": tn.CheckResources(), "plan": plan.CheckResources()} {
				fe, isField := errors.AsType[*limiter.FieldError](err)
				switch {
				case !refused && err != nil:
					t.Errorf("%s: %v, want nil", what, err)
				case refused && (!isField || fe.Field != "routes[1].resource"):
					t.Errorf("%s: %v, want an error naming routes[1].resource", what, err)
				}
			}
		})
	}
}
