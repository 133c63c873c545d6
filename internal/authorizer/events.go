package authorizer

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/internal/request"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// ErrTokenEvent is returned by REST for a TOKEN authorizer event (request.ErrTokenEvent):
// Token answers those.
var ErrTokenEvent = request.ErrTokenEvent

// The events without the ARN their policy would name.
var (
	errNoMethodArn = errors.New("authorizer: REST event without a methodArn: not an API Gateway REQUEST authorizer event")
	errNoRouteArn  = errors.New("authorizer: HTTP API event without a routeArn: not an API Gateway authorizer event")
)

// REST answers a REST API (v1) REQUEST authorizer event (also the HTTP API's payload
// format 1.0) with an IAM policy on the event's methodArn, or ErrUnauthorized.
func (h *Handler) REST(ctx context.Context, ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	resp, _, err := h.RESTResult(ctx, ev)
	return resp, err
}

// RESTResult is REST, also returning the gate's Result, for callers that render the
// decision themselves (headers for `edgelimit dev`). The Result is the zero Result when
// the event was refused before the gate was asked.
func (h *Handler) RESTResult(ctx context.Context, ev events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, gate.Result, error) {
	req, err := request.FromRESTAuthorizer(ev, h.gate.KeyHeader())
	if err != nil {
		return events.APIGatewayCustomAuthorizerResponse{}, gate.Result{}, err
	}
	resp, res, err := h.policyReply(ctx, request.AuthorizerEvent{Kind: request.RESTEvent, Request: req,
		MethodArn: ev.MethodArn, RequestID: ev.RequestContext.RequestID})
	if err == nil {
		resp.Context = contextOf(res)
	}
	return resp, res, err
}

// Token answers a REST API (v1) TOKEN authorizer event with an IAM policy on its
// methodArn, or ErrUnauthorized. The token is the API key; the route is the methodArn's
// method and path; the event carries no source IP (see the package doc).
func (h *Handler) Token(ctx context.Context, ev events.APIGatewayCustomAuthorizerRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	resp, res, err := h.policyReply(ctx, request.AuthorizerEvent{Kind: request.TokenEvent,
		Request: request.FromTokenAuthorizer(ev), MethodArn: ev.MethodArn})
	if err == nil {
		resp.Context = contextOf(res)
	}
	return resp, err
}

// HTTP answers an HTTP API payload 2.0 event with the simple response, or
// ErrUnauthorized.
func (h *Handler) HTTP(ctx context.Context, ev events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerSimpleResponse, error) {
	resp, res, err := h.simpleReply(ctx, httpEvent(ev, h.gate.KeyHeader()))
	if err == nil {
		resp.Context = contextOf(res)
	}
	return resp, err
}

// HTTPIAM answers an HTTP API payload 2.0 event with an IAM policy on its routeArn, or
// ErrUnauthorized.
func (h *Handler) HTTPIAM(ctx context.Context, ev events.APIGatewayV2CustomAuthorizerV2Request) (events.APIGatewayV2CustomAuthorizerIAMPolicyResponse, error) {
	resp, res, err := h.iamReply(ctx, httpEvent(ev, h.gate.KeyHeader()))
	if err == nil {
		resp.Context = contextOf(res)
	}
	return resp, err
}

func httpEvent(ev events.APIGatewayV2CustomAuthorizerV2Request, keyHeader string) request.AuthorizerEvent {
	return request.AuthorizerEvent{Kind: request.HTTPEvent, Request: request.FromHTTPAuthorizer(ev, keyHeader),
		RouteArn: ev.RouteArn, RequestID: ev.RequestContext.RequestID}
}

// policyReply answers a REST or TOKEN event with an IAM policy on its methodArn. Like
// simpleReply and iamReply, it leaves the response's context to its caller:
// contextOf's map, or Invoke's replyContext.
func (h *Handler) policyReply(ctx context.Context, ev request.AuthorizerEvent) (events.APIGatewayCustomAuthorizerResponse, gate.Result, error) {
	if ev.MethodArn == "" {
		return events.APIGatewayCustomAuthorizerResponse{}, gate.Result{}, errNoMethodArn
	}
	res, err := h.decide(ctx, ev.Request, ev.RequestID)
	if err != nil {
		return events.APIGatewayCustomAuthorizerResponse{}, res, err
	}
	resp := events.APIGatewayCustomAuthorizerResponse{
		PrincipalID:    principal(res),
		PolicyDocument: policy(res.Status == gate.Allowed, ev.MethodArn),
	}
	if h.usage == UsageAPIKey {
		resp.UsageIdentifierKey = ev.Request.APIKey
	}
	return resp, res, nil
}

// simpleReply answers an HTTP API event with the simple response.
func (h *Handler) simpleReply(ctx context.Context, ev request.AuthorizerEvent) (events.APIGatewayV2CustomAuthorizerSimpleResponse, gate.Result, error) {
	res, err := h.decide(ctx, ev.Request, ev.RequestID)
	if err != nil {
		return events.APIGatewayV2CustomAuthorizerSimpleResponse{}, res, err
	}
	return events.APIGatewayV2CustomAuthorizerSimpleResponse{IsAuthorized: res.Status == gate.Allowed}, res, nil
}

// iamReply answers an HTTP API event with an IAM policy on its routeArn.
func (h *Handler) iamReply(ctx context.Context, ev request.AuthorizerEvent) (events.APIGatewayV2CustomAuthorizerIAMPolicyResponse, gate.Result, error) {
	if ev.RouteArn == "" {
		return events.APIGatewayV2CustomAuthorizerIAMPolicyResponse{}, gate.Result{}, errNoRouteArn
	}
	res, err := h.decide(ctx, ev.Request, ev.RequestID)
	if err != nil {
		return events.APIGatewayV2CustomAuthorizerIAMPolicyResponse{}, res, err
	}
	return events.APIGatewayV2CustomAuthorizerIAMPolicyResponse{
		PrincipalID:    principal(res),
		PolicyDocument: policy(res.Status == gate.Allowed, ev.RouteArn),
	}, res, nil
}

// decide runs the gate and reports the decision. It returns ErrUnauthorized for an
// Unauthorized result; the gate's own errors (a cost no rule admits) pass through.
func (h *Handler) decide(ctx context.Context, req gate.Request, requestID string) (gate.Result, error) {
	start := time.Now()
	res, err := h.gate.Check(ctx, req)
	elapsed := time.Since(start)
	if err != nil {
		return res, err
	}
	h.observe(ctx, &res, elapsed, requestID)
	if res.Status == gate.Unauthorized {
		return res, ErrUnauthorized
	}
	return res, nil
}
