package authorizer

import (
	"encoding/json"
	"strconv"

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
	return map[string]any{
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

// replySize is the capacity Invoke gives a reply: a policy, its ARN and the context fit.
const replySize = 512

// appendPolicyResponse appends the JSON of the IAM policy response to b: what
// encoding/json writes for events.APIGatewayCustomAuthorizerResponse (usageKey its
// usageIdentifierKey, left out when "") or, without one,
// events.APIGatewayV2CustomAuthorizerIAMPolicyResponse.
func appendPolicyResponse(b []byte, res *gate.Result, resource, usageKey string) []byte {
	effect := `"Deny"`
	if res.Status == gate.Allowed {
		effect = `"Allow"`
	}
	b = append(b, `{"principalId":`...)
	b = appendPrincipal(b, res)
	b = append(b, `,"policyDocument":{"Version":"2012-10-17","Statement":[{"Action":["execute-api:Invoke"],"Effect":`...)
	b = append(b, effect...)
	b = append(b, `,"Resource":[`...)
	b = appendString(b, resource)
	b = append(b, `]}]},"context":`...)
	b = appendContext(b, res)
	if usageKey != "" {
		b = append(b, `,"usageIdentifierKey":`...)
		b = appendString(b, usageKey)
	}
	return append(b, '}')
}

// appendSimpleResponse appends the JSON of the HTTP API's simple response to b, as
// encoding/json writes events.APIGatewayV2CustomAuthorizerSimpleResponse.
func appendSimpleResponse(b []byte, res *gate.Result) []byte {
	b = append(b, `{"isAuthorized":`...)
	b = strconv.AppendBool(b, res.Status == gate.Allowed)
	b = append(b, `,"context":`...)
	b = appendContext(b, res)
	return append(b, '}')
}

// appendContext appends contextOf(res) as encoding/json writes a map: keys in order.
func appendContext(b []byte, res *gate.Result) []byte {
	d := res.Decision
	b = appendInt(b, `{"`+CtxDelayMs+`":`, limiter.CeilMillis(d.Delay))
	b = appendBool(b, `,"`+CtxFailClosed+`":`, res.FailedClosed)
	b = appendBool(b, `,"`+CtxFailOpen+`":`, res.FailOpen)
	b = appendInt(b, `,"`+CtxLimit+`":`, d.Limit)
	b = appendInt(b, `,"`+CtxRemaining+`":`, d.Remaining)
	b = appendInt(b, `,"`+CtxReset+`":`, limiter.CeilSeconds(d.Reset))
	b = appendInt(b, `,"`+CtxRetryAfter+`":`, res.RetryAfterSeconds())
	b = append(b, `,"`+CtxRule+`":`...)
	b = appendString(b, res.Rule)
	b = appendBool(b, `,"`+CtxShadow+`":`, res.Shadow)
	b = append(b, `,"`+CtxTenantID+`":`...)
	b = appendString(b, res.TenantID)
	return append(b, '}')
}

// appendPrincipal appends principal(*res) as a JSON string.
func appendPrincipal(b []byte, res *gate.Result) []byte {
	if res.TenantID == "" || res.Identity == "" || !plainJSON(res.TenantID) || !plainJSON(res.Identity) {
		return appendString(b, principal(*res))
	}
	b = append(b, '"')
	b = append(b, res.TenantID...)
	b = append(b, '/')
	b = append(b, res.Identity...)
	return append(b, '"')
}

func appendInt(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(append(b, key...), n, 10)
}

func appendBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(append(b, key...), v)
}

// appendString appends s as encoding/json writes a string: printable ASCII other than
// the characters it escapes goes as it is; anything else through json.Marshal.
func appendString(b []byte, s string) []byte {
	if !plainJSON(s) {
		q, _ := json.Marshal(s) // a string always encodes
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON reports whether encoding/json writes s as it is, between quotes.
func plainJSON(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
