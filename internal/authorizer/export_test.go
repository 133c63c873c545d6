package authorizer

import "github.com/edgelimit/edgelimit/pkg/gate"

// GateOf returns h's gate, for tests.
func GateOf(h *Handler) *gate.Gate { return h.gate }
