package middleware

import (
	"context"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/pending"
	"github.com/edgelimit/edgelimit/internal/request"
)

// The aws-lambda-go handler shapes the middleware wraps.
type (
	// ProxyHandler handles REST API (v1) Lambda proxy events.
	ProxyHandler func(context.Context, events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error)
	// V2Handler handles HTTP API payload 2.0 events.
	V2Handler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
	// FunctionURLHandler handles Lambda function URL events.
	FunctionURLHandler func(context.Context, events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error)
	// ALBHandler handles Application Load Balancer target group events.
	ALBHandler func(context.Context, events.ALBTargetGroupRequest) (events.ALBTargetGroupResponse, error)
)

// APIGatewayProxy wraps a REST API (v1) proxy handler; the route is the event's resource.
func (m *Middleware) APIGatewayProxy(next ProxyHandler) ProxyHandler {
	return func(ctx context.Context, e events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		a, p := m.decide(ctx, request.FromRESTProxy(e, m.gate.KeyHeader()))
		if a.Status > 0 {
			return events.APIGatewayProxyResponse{StatusCode: a.Status, Headers: flat(a.Header), Body: string(a.Body)}, nil
		}
		resp, err := serveEvent(m, withPending(ctx, p), p, next, e, proxyHeaders)
		resp.Headers, resp.MultiValueHeaders = merge(a.Header, resp.Headers, resp.MultiValueHeaders)
		return resp, err
	}
}

// APIGatewayV2 wraps an HTTP API (payload 2.0) handler; the route is the event's route key.
func (m *Middleware) APIGatewayV2(next V2Handler) V2Handler {
	return func(ctx context.Context, e events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		a, p := m.decide(ctx, request.FromHTTPProxy(e, m.gate.KeyHeader()))
		if a.Status > 0 {
			return events.APIGatewayV2HTTPResponse{StatusCode: a.Status, Headers: flat(a.Header), Body: string(a.Body)}, nil
		}
		resp, err := serveEvent(m, withPending(ctx, p), p, next, e, v2Headers)
		resp.Headers, resp.MultiValueHeaders = merge(a.Header, resp.Headers, resp.MultiValueHeaders)
		return resp, err
	}
}

// FunctionURL wraps a Lambda function URL handler; the route is the raw path.
func (m *Middleware) FunctionURL(next FunctionURLHandler) FunctionURLHandler {
	return func(ctx context.Context, e events.LambdaFunctionURLRequest) (events.LambdaFunctionURLResponse, error) {
		a, p := m.decide(ctx, request.FromFunctionURL(e, m.gate.KeyHeader()))
		if a.Status > 0 {
			return events.LambdaFunctionURLResponse{StatusCode: a.Status, Headers: flat(a.Header), Body: string(a.Body)}, nil
		}
		resp, err := serveEvent(m, withPending(ctx, p), p, next, e, urlHeaders)
		resp.Headers, _ = merge(a.Header, resp.Headers, nil)
		return resp, err
	}
}

// ALB wraps an Application Load Balancer target handler; the route is the path and the
// source IP the last X-Forwarded-For entry (the one the load balancer appended).
func (m *Middleware) ALB(next ALBHandler) ALBHandler {
	return func(ctx context.Context, e events.ALBTargetGroupRequest) (events.ALBTargetGroupResponse, error) {
		a, p := m.decide(ctx, request.FromALB(e, m.gate.KeyHeader()))
		multi := e.MultiValueHeaders != nil
		if a.Status > 0 {
			resp := events.ALBTargetGroupResponse{StatusCode: a.Status, StatusDescription: strconv.Itoa(a.Status) + " " + http.StatusText(a.Status), Body: string(a.Body)}
			if multi {
				resp.MultiValueHeaders = map[string][]string(a.Header)
			} else {
				resp.Headers = flat(a.Header)
			}
			return resp, nil
		}
		resp, err := serveEvent(m, withPending(ctx, p), p, next, e, albHeaders)
		resp.Headers, resp.MultiValueHeaders = merge(a.Header, resp.Headers, resp.MultiValueHeaders)
		return resp, err
	}
}

// flat turns the middleware's headers into an event response's single-value map.
func flat(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = strings.Join(v, ", ")
	}
	return out
}

// merge adds the rate-limit headers to a handler's response, into its multi-value map
// when it uses one; the handler's own values of the same names win.
func merge(add http.Header, single map[string]string, multi map[string][]string) (map[string]string, map[string][]string) {
	if len(add) == 0 {
		return single, multi
	}
	if multi != nil && single == nil {
		for k, v := range add {
			if request.Header(nil, multi, k) == "" {
				multi[k] = v
			}
		}
		return single, multi
	}
	if single == nil {
		single = map[string]string{}
	}
	for k, v := range add {
		if request.Header(single, multi, k) == "" {
			single[k] = strings.Join(v, ", ")
		}
	}
	return single, multi
}

// serveEvent calls next with ctx and e, then settles p (see Middleware.settle) once next
// returned or panicked, taking SettleCostHeader out of the header maps that hdr gives of
// its response (a panic's is the zero response; the panic goes on after the settle).
func serveEvent[E, R any](m *Middleware, ctx context.Context, p *pending.Reservation, next func(context.Context, E) (R, error), e E,
	hdr func(*R) (map[string]string, map[string][]string)) (resp R, err error) {
	defer func() {
		single, multi := hdr(&resp)
		m.settleEvent(ctx, p, single, multi)
	}()
	return next(ctx, e)
}

// The header maps of each event response, for serveEvent.
func proxyHeaders(r *events.APIGatewayProxyResponse) (map[string]string, map[string][]string) {
	return r.Headers, r.MultiValueHeaders
}

func v2Headers(r *events.APIGatewayV2HTTPResponse) (map[string]string, map[string][]string) {
	return r.Headers, r.MultiValueHeaders
}

func urlHeaders(r *events.LambdaFunctionURLResponse) (map[string]string, map[string][]string) {
	return r.Headers, nil
}

func albHeaders(r *events.ALBTargetGroupResponse) (map[string]string, map[string][]string) {
	return r.Headers, r.MultiValueHeaders
}

// settleEvent takes SettleCostHeader out of an event response's headers and settles p
// (see Middleware.settle).
func (m *Middleware) settleEvent(ctx context.Context, p *pending.Reservation, single map[string]string, multi map[string][]string) {
	if p == nil {
		return
	}
	if v := request.Header(single, multi, SettleCostHeader); v != "" {
		p.Record(v)
	}
	maps.DeleteFunc(single, func(k, _ string) bool { return strings.EqualFold(k, SettleCostHeader) })
	maps.DeleteFunc(multi, func(k string, _ []string) bool { return strings.EqualFold(k, SettleCostHeader) })
	m.settle(ctx, p)
}
