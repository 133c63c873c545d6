package authorizer

import (
	"github.com/aws/aws-lambda-go/events"

	"github.com/edgelimit/edgelimit/pkg/gate"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// The context keys, as the package doc and the gateway response templates name them.
const (
	CtxTenantID   = "tenantId"
	CtxRule       = "rule"
	CtxLimit      = "limit"
	CtxRemaining  = "remaining"
	CtxReset      = "reset"
	CtxRetryAfter = "retryAfter"
	CtxDelayMs    = "delayMs"
	CtxFailOpen   = "failOpen"
	CtxFailClosed = "failClosed"
	CtxShadow     = "shadow"
	// CtxReservation is an allowed request's reservation id (gate.Reservation.ID),
	// present only when there is one: settle it with the request's real cost.
	CtxReservation = "reservation"
)

// The responses Invoke encodes: aws-lambda-go's, whose context map (left nil) the
// Context member shadows, so that encoding/json writes the bytes it writes for the
// response with contextOf's map, without building that map. policyWire lists the
// members of events.APIGatewayCustomAuthorizerResponse instead of embedding it, for
// its context comes before usageIdentifierKey.
type (
	policyWire struct {
		PrincipalID        string                                  `json:"principalId"`
		PolicyDocument     events.APIGatewayCustomAuthorizerPolicy `json:"policyDocument"`
		Context            replyContext                            `json:"context"`
		UsageIdentifierKey string                                  `json:"usageIdentifierKey,omitempty"`
	}
	simpleWire struct {
		events.APIGatewayV2CustomAuthorizerSimpleResponse
		Context replyContext `json:"context"`
	}
	iamWire struct {
		events.APIGatewayV2CustomAuthorizerIAMPolicyResponse
		Context replyContext `json:"context"`
	}
)

// newPolicyWire returns resp, the response of policyReply, with context c.
func newPolicyWire(resp events.APIGatewayCustomAuthorizerResponse, c replyContext) policyWire {
	return policyWire{PrincipalID: resp.PrincipalID, PolicyDocument: resp.PolicyDocument, Context: c,
		UsageIdentifierKey: resp.UsageIdentifierKey}
}

// policy returns the policy document that allows or denies execute-api:Invoke on
// resource, this request's methodArn or routeArn, and nothing else. Its statement and
// the statement's two lists share one allocation.
func policy(allow bool, resource string) events.APIGatewayCustomAuthorizerPolicy {
	effect := "Deny"
	if allow {
		effect = "Allow"
	}
	p := &struct {
		statement        [1]events.IAMPolicyStatement
		action, resource [1]string
	}{action: [1]string{"execute-api:Invoke"}, resource: [1]string{resource}}
	p.statement[0] = events.IAMPolicyStatement{Action: p.action[:], Effect: effect, Resource: p.resource[:]}
	return events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: p.statement[:]}
}

// replyContext is the authorizer context of a Result (the Ctx keys) as a struct, so
// that Invoke encodes it without building a map for encoding/json to sort: its members
// are in the keys' byte order, which is the order encoding/json writes contextOf's map
// in, so the two encode to the same bytes (TestInvokeAnswersAsTheDecodedEvent).
type replyContext struct {
	DelayMs     int64  `json:"delayMs"`
	FailClosed  bool   `json:"failClosed"`
	FailOpen    bool   `json:"failOpen"`
	Limit       int64  `json:"limit"`
	Remaining   int64  `json:"remaining"`
	Reservation string `json:"reservation,omitempty"`
	Reset       int64  `json:"reset"`
	RetryAfter  int64  `json:"retryAfter"`
	Rule        string `json:"rule"`
	Shadow      bool   `json:"shadow"`
	TenantID    string `json:"tenantId"`
}

// newReplyContext returns the context of res: strings, numbers and booleans only; the
// reservation only for an allowed request that has one.
func newReplyContext(res *gate.Result) replyContext {
	d := res.Decision
	c := replyContext{
		TenantID:   res.TenantID,
		Rule:       res.Rule,
		Limit:      d.Limit,
		Remaining:  d.Remaining,
		Reset:      limiter.CeilSeconds(d.Reset),
		RetryAfter: res.RetryAfterSeconds(),
		DelayMs:    limiter.CeilMillis(d.Delay),
		FailOpen:   res.FailOpen,
		FailClosed: res.FailedClosed,
		Shadow:     res.Shadow,
	}
	if res.Status == gate.Allowed {
		c.Reservation = res.Reservation.ID
	}
	return c
}

// contextOf returns the authorizer context of res as the map of aws-lambda-go's
// response types: newReplyContext's members under the Ctx keys.
func contextOf(res gate.Result) map[string]any {
	c := newReplyContext(&res)
	ctx := map[string]any{
		CtxTenantID:   c.TenantID,
		CtxRule:       c.Rule,
		CtxLimit:      c.Limit,
		CtxRemaining:  c.Remaining,
		CtxReset:      c.Reset,
		CtxRetryAfter: c.RetryAfter,
		CtxDelayMs:    c.DelayMs,
		CtxFailOpen:   c.FailOpen,
		CtxFailClosed: c.FailClosed,
		CtxShadow:     c.Shadow,
	}
	if c.Reservation != "" {
		ctx[CtxReservation] = c.Reservation
	}
	return ctx
}

// principal returns the principalId: "<tenant>/<identity>", never the key.
func principal(res gate.Result) string {
	switch {
	case res.TenantID == "":
		return "unknown"
	case res.Identity == "":
		return res.TenantID
	}
	return res.TenantID + "/" + res.Identity
}
