// Package pending holds an allowed request's reservation while the request is served,
// with the real cost its handler or upstream reports, and says at what cost to settle
// it once the exchange is over: pkg/middleware and `edgelimit dev --upstream` settle
// through it.
//
// The cost is the one given to SetCost, else the response's X-RateLimit-Settle-Cost
// header (headers.SettleCost), else the estimate. A reservation over no concurrency
// rule is not settled at its estimate: that settle would change no counter and cost a
// store call (a DynamoDB transaction of 4 write units and more, a Redis or Upstash
// round trip). One that holds a concurrency slot is, since the settle frees the slot;
// without it the slot stays held until its lease ends.
package pending
