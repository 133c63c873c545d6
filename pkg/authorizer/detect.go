package authorizer

import (
	"encoding/json"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/request"
)

type eventKind int

const (
	kindREST eventKind = iota + 1 // REST API (v1) REQUEST, or HTTP API payload 1.0
	kindHTTP                      // HTTP API payload 2.0
)

// ErrTokenEvent is returned for a TOKEN authorizer event (request.ErrTokenEvent).
var ErrTokenEvent = request.ErrTokenEvent

// probe holds the fields that tell the event types apart.
type probe struct {
	Version   string `json:"version"`
	Type      string `json:"type"`
	MethodArn string `json:"methodArn"`
	RouteArn  string `json:"routeArn"`
}

// detect tells what kind of authorizer event payload is.
func detect(payload []byte) (eventKind, error) {
	var p probe
	if err := json.Unmarshal(payload, &p); err != nil {
		return 0, fmt.Errorf("authorizer: malformed event: %w", err)
	}
	switch {
	case p.Type == "TOKEN":
		return 0, ErrTokenEvent
	case p.Type != "REQUEST":
		return 0, fmt.Errorf("authorizer: not an API Gateway authorizer event (type %.20q): want a REQUEST authorizer event", p.Type)
	case p.Version == "2.0":
		return kindHTTP, nil
	case p.Version == "" || p.Version == "1.0":
		return kindREST, nil
	}
	return 0, fmt.Errorf("authorizer: authorizer payload version %.10q is not supported: want 1.0 or 2.0", p.Version)
}
