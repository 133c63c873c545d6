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

// policy returns the policy document that allows or denies execute-api:Invoke on
// resource, this request's methodArn or routeArn, and nothing else.
func policy(allow bool, resource string) events.APIGatewayCustomAuthorizerPolicy {
	effect := "Deny"
	if allow {
		effect = "Allow"
	}
	return events.APIGatewayCustomAuthorizerPolicy{
		Version: "2012-10-17",
		Statement: []events.IAMPolicyStatement{{
			Action:   []string{"execute-api:Invoke"},
			Effect:   effect,
			Resource: []string{resource},
		}},
	}
}

// contextOf returns the authorizer context of res: strings, numbers and booleans only.
func contextOf(res gate.Result) map[string]any {
	d := res.Decision
	ctx := map[string]any{
		CtxTenantID:   res.TenantID,
		CtxRule:       res.Rule,
		CtxLimit:      d.Limit,
		CtxRemaining:  d.Remaining,
		CtxReset:      limiter.CeilSeconds(d.Reset),
		CtxRetryAfter: res.RetryAfterSeconds(),
		CtxDelayMs:    limiter.CeilMillis(d.Delay),
		CtxFailOpen:   res.FailOpen,
		CtxFailClosed: res.FailedClosed,
		CtxShadow:     res.Shadow,
	}
	if res.Reservation.ID != "" && res.Status == gate.Allowed {
		ctx[CtxReservation] = res.Reservation.ID
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
