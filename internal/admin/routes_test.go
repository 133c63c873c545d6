package admin

// Route names one operation the handler serves: an HTTP method and a path pattern as
// docs/openapi.yaml writes it.
type Route struct {
	Method, Pattern string
}

// Routes lists the operations the handler serves, for the test that holds them to
// docs/openapi.yaml (TestSpecCoversRoutes).
func (h *Handler) Routes() []Route {
	var out []Route
	for _, rt := range h.routes {
		for _, m := range rt.methods {
			out = append(out, Route{Method: m.name, Pattern: rt.pattern})
		}
	}
	return out
}
