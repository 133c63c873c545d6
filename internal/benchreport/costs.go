package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The published prices the cost table uses: on-demand, us-east-1, without free tiers,
// as read on pricesRead from the pages in pricePages.
const (
	pricesRead         = "2026-12-01"
	lambdaPerRequest   = 0.20 / 1e6     // AWS Lambda: $0.20 per million requests
	lambdaPerGBSecond  = 0.0000133334   // AWS Lambda, arm64: $0.0000133334 per GB-second
	dynamoDBPerWRU     = 0.625 / 1e6    // DynamoDB on demand: $0.625 per million write request units
	upstashPerCommand  = 0.20 / 100_000 // Upstash Redis, pay as you go: $0.20 per 100,000 commands
	authorizerMemoryMB = 256            // template.yaml's MemorySize of AuthorizerFunction
	// assumedRoundTripMS is a store round trip from a function in the store's region:
	// this machine reaches no AWS service, so it is assumed, not measured (DynamoDB
	// promises single-digit milliseconds; an Upstash database in the function's region
	// answers in a few).
	assumedRoundTripMS = 5
)

var pricePages = []string{
	"https://aws.amazon.com/lambda/pricing/",
	"https://aws.amazon.com/dynamodb/pricing/on-demand/",
	"https://upstash.com/pricing/redis",
}

// cost is what a million decisions cost on one store.
type cost struct {
	store              string
	roundTrips, units  float64 // per decision, measured
	unitName           string
	billedMS           float64
	lambda, storeCost  float64 // dollars per million decisions
	measuredRoundTrips bool
}

// costs prices a decision on each store from the measured round trips, write units
// and warm compute: Lambda bills each invocation's duration rounded up to the
// millisecond, at the function's memory.
func (r *report) costs() ([]cost, bool) {
	computeNS, ok := r.runs["authorizer"].median("BenchmarkInvokeWarm/edgelimit", nsPerOp)
	if !ok {
		return nil, false
	}
	dynReq, ok1 := r.runs["dynamodb"].median("BenchmarkDecide/callers=1", "requests/decision")
	dynWRU, ok2 := r.runs["dynamodb"].median("BenchmarkDecide/callers=1", "write-units/decision")
	upReq, ok3 := r.runs["upstash"].median("BenchmarkStoreDecide/callers=1", "requests/decision")
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	out := []cost{
		{store: "DynamoDB (on demand)", roundTrips: dynReq, units: dynWRU, unitName: "write request units"},
		{store: "Upstash (pay as you go)", roundTrips: upReq, units: upReq, unitName: "commands"},
		{store: "memory (one process; for comparison)", unitName: "none"},
	}
	for i := range out {
		c := &out[i]
		c.billedMS = math.Ceil(computeNS/1e6 + c.roundTrips*assumedRoundTripMS)
		c.lambda = 1e6 * (lambdaPerRequest + c.billedMS/1000*authorizerMemoryMB/1024*lambdaPerGBSecond)
		switch i {
		case 0:
			c.storeCost = 1e6 * c.units * dynamoDBPerWRU
		case 1:
			c.storeCost = 1e6 * c.units * upstashPerCommand
		}
	}
	return out, true
}

// costSection writes the cost table.
func (r *report) costSection(b *strings.Builder) {
	b.WriteString("\n## What a million decisions cost\n\n")
	cs, ok := r.costs()
	if !ok {
		b.WriteString("Not computed: a benchmark it needs did not run.\n")
		return
	}
	compute, _ := r.runs["authorizer"].median("BenchmarkInvokeWarm/edgelimit", nsPerOp)
	fmt.Fprintf(b, "From the figures above: the round trips and write units each decision measured, and the "+
		"authorizer's warm compute (%s) plus %d ms per store round trip (assumed: this machine reaches no AWS "+
		"service), which Lambda bills rounded up to the millisecond at the function's %d MB, on arm64. Prices: "+
		"on demand, us-east-1, no free tier, read %s from %s.\n\n",
		duration(compute), assumedRoundTripMS, authorizerMemoryMB, pricesRead, strings.Join(pricePages, ", "))
	b.WriteString("| store | round trips | store units per decision | billed Lambda ms | Lambda $ per million | store $ per million | total $ per million |\n|---|---|---|---|---|---|---|\n")
	for _, c := range cs {
		units := "none"
		if c.unitName != "none" {
			units = trim(c.units) + " " + c.unitName
		}
		fmt.Fprintf(b, "| %s | %s | %s | %.0f | %s | %s | %s |\n", c.store, trim(c.roundTrips), units,
			c.billedMS, dollars(c.lambda), dollars(c.storeCost), dollars(c.lambda+c.storeCost))
	}
	b.WriteString("\nLambda's price is $0.20 per million requests and $0.0000133334 per GB-second (arm64); DynamoDB's " +
		"$0.625 per million write request units (a denial is a failed conditional write, billed as one); Upstash's " +
		"$0.20 per 100,000 commands. The stores' own prices dominate: at " + strconv.Itoa(authorizerMemoryMB) + " MB a millisecond of billed duration " +
		fmt.Sprintf("costs $%.4f per million decisions, ", 1e6*authorizerMemoryMB/1024*lambdaPerGBSecond/1000) +
		"so a slower store costs little more in Lambda. Left out: API " +
		"Gateway's own price (the same whatever the authorizer), the tenant and key reads (one each per key and " +
		"instance every `EDGELIMIT_CONFIG_TTL`, 10 s), cold starts and storage; and the Redis backend, whose " +
		"servers (ElastiCache or your own) are priced by the hour, not by the request.\n")
}
