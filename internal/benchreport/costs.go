package main

import (
	"fmt"
	"math"
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

// cost is what a million decisions cost on one store, for one shape of request.
type cost struct {
	store             string
	roundTrips, units float64 // per decision: measured, or priced from the store's rule (note)
	unitName          string
	unitPrice         float64 // dollars per unit
	billedMS          float64
	lambda, storeCost float64 // dollars per million decisions, each rounded to the cent
	note              string  // where units come from, when not from the store's own row above
}

// total is the row's total: the sum of its two rounded columns, as the table shows them.
func (c cost) total() float64 { return c.lambda + c.storeCost }

// cents rounds dollars to the cent, half up, after dropping float noise below a
// millionth of a dollar ($0.625 stays 0.625, and shows as $0.63).
func cents(v float64) float64 { return math.Round(math.Round(v*1e6)/1e4) / 100 }

// The rows of costs that the README's figures quote.
const (
	dynamoDBRow = 0
	upstashRow  = 3
)

// transactionUnitsPerCounter is what DynamoDB bills per item of a TransactWriteItems:
// two write request units (a request over several counters is one transaction).
const transactionUnitsPerCounter = 2

// costs prices a decision on each store from the measured round trips, write units
// and warm compute: Lambda bills each invocation's duration rounded up to the
// millisecond, at the function's memory. A request over several counters is priced
// from the stores' rules (one transaction of 2 units per counter on DynamoDB; one
// script call whatever the count on Upstash), a hot counter from its measured writes.
func (r *report) costs() ([]cost, bool) {
	computeNS, ok := r.runs["authorizer"].median("BenchmarkInvokeWarm/edgelimit", nsPerOp)
	if !ok {
		return nil, false
	}
	dynReq, ok1 := r.runs["dynamodb"].median("BenchmarkDecide/callers=1", "requests/decision")
	dynWRU, ok2 := r.runs["dynamodb"].median("BenchmarkDecide/callers=1", "write-units/decision")
	upReq, ok3 := r.runs["upstash"].median("BenchmarkStoreDecide/callers=1", "requests/decision")
	hot, ok4 := r.runs["hotcounter"].median("BenchmarkDecideDynamoDB/hot", "writes/decision")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, false
	}
	const wru, cmd = "write request units", "commands"
	out := []cost{
		{store: "DynamoDB (on demand), one counter", roundTrips: dynReq, units: dynWRU, unitName: wru, unitPrice: dynamoDBPerWRU},
		{store: "DynamoDB, 3 counters", roundTrips: dynReq, units: 3 * transactionUnitsPerCounter, unitName: wru, unitPrice: dynamoDBPerWRU,
			note: "one TransactWriteItems: 2 units per counter, DynamoDB's rule"},
		{store: "DynamoDB, a hot counter", roundTrips: hot, units: hot, unitName: wru, unitPrice: dynamoDBPerWRU,
			note: "BenchmarkDecideDynamoDB/hot: one write per lease"},
		{store: "Upstash (pay as you go), one counter", roundTrips: upReq, units: upReq, unitName: cmd, unitPrice: upstashPerCommand},
		{store: "Upstash, 3 counters", roundTrips: upReq, units: upReq, unitName: cmd, unitPrice: upstashPerCommand,
			note: "one script call decides every counter of a request"},
		{store: "memory (one process; for comparison)", unitName: "none"},
	}
	for i := range out {
		c := &out[i]
		c.billedMS = math.Ceil(computeNS/1e6 + c.roundTrips*assumedRoundTripMS)
		c.lambda = cents(1e6 * (lambdaPerRequest + c.billedMS/1000*authorizerMemoryMB/1024*lambdaPerGBSecond))
		c.storeCost = cents(1e6 * c.units * c.unitPrice)
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
	prices := map[string]any{"compute": duration(compute), "roundTripMS": assumedRoundTripMS,
		"memoryMB": authorizerMemoryMB, "pricesRead": pricesRead, "pricePages": strings.Join(pricePages, ", "),
		"perMS": fmt.Sprintf("%.4f", 1e6*authorizerMemoryMB/1024*lambdaPerGBSecond/1000)}
	prose.ExecuteTemplate(b, "costs", prices) // into a strings.Builder, every key set: it cannot fail
	b.WriteString("\n\n")
	b.WriteString("| store | round trips | store units per decision | billed Lambda ms | Lambda $ per million | store $ per million | total $ per million |\n|---|---|---|---|---|---|---|\n")
	for _, c := range cs {
		units := "none"
		if c.unitName != "none" {
			units = trim(c.units) + " " + c.unitName
		}
		if c.note != "" {
			units += " (" + c.note + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %.0f | %s | %s | %s |\n", c.store, trim(c.roundTrips), units,
			c.billedMS, dollars(c.lambda), dollars(c.storeCost), dollars(c.total()))
	}
	b.WriteString("\n")
	prose.ExecuteTemplate(b, "cost terms", prices)
	b.WriteString("\n")
}
