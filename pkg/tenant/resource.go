package tenant

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// CheckResources is the write-time check of t's routes' resources, beyond Validate's:
// a greedy variable ("{proxy+}") anywhere but in a resource's last segment
// ("/a/{proxy+}/b"), which API Gateway refuses in a resource, so that no request can
// be of it, is a *limiter.FieldError naming "routes[1].resource". Validate does not
// check it, so that a tenant stored before the check reads as it did; the admin API
// and edgelimit apply call CheckResources before they write a tenant.
func (t Tenant) CheckResources() error { return checkResources(t.Routes) }

// CheckResources is Tenant.CheckResources for the plan's routes.
func (p Plan) CheckResources() error { return checkResources(p.Routes) }

func checkResources(routes []Route) error {
	for i, r := range routes {
		if err := checkGreedy(r.Resource); err != nil {
			return prefixed("routes["+strconv.Itoa(i)+"]", err)
		}
	}
	return nil
}

// checkGreedy refuses a resource with a greedy variable before its last segment.
func checkGreedy(resource string) error {
	segments := strings.Split(strings.TrimPrefix(resource, "/"), "/")
	for i, seg := range segments[:len(segments)-1] {
		if isGreedy(seg) {
			return &limiter.FieldError{Field: "resource", Value: strconv.Quote(resource),
				Reason: fmt.Sprintf("the greedy variable %s is segment %d of %d: API Gateway takes one only as the last segment (\"/files/{proxy+}\")", seg, i+1, len(segments))}
		}
	}
	return nil
}

// isGreedy reports whether a resource's segment is a greedy variable, {name+}.
func isGreedy(seg string) bool {
	name, ok := strings.CutPrefix(seg, "{")
	name, greedy := strings.CutSuffix(name, "+}")
	return ok && greedy && name != "" && !strings.ContainsAny(name, "{}+")
}
