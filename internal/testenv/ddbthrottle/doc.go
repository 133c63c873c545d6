// Package ddbthrottle makes DynamoDB Local throttle like DynamoDB: an HTTP transport
// (or a loopback proxy built on it) in front of any DynamoDB endpoint that enforces a
// write and a read capacity per partition key and answers what DynamoDB answers when a
// key is over it, in DynamoDB's wire format.
//
// DynamoDB limits each partition to 1,000 write units and 3,000 read units per second,
// and a single partition key value can never be split across partitions, so one hot
// item is bounded by those figures whatever the table's capacity. DynamoDB Local
// enforces nothing. The Throttle keeps, per table and partition key value, a token
// bucket of write units and one of read units (Config: default 1,000 and 3,000 per
// second, one second of burst) on the real clock, charges each request before
// forwarding it, and refuses the requests that do not fit:
//
//   - UpdateItem, PutItem, DeleteItem: 1 write unit (items under 1 KB, as edgelimit's
//     are); GetItem: 1 read unit when ConsistentRead, else 0.5.
//   - A refusal is HTTP 400 with x-amzn-ErrorType and a JSON body whose __type is
//     com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException (or
//     #ThrottlingException with Config.OnDemand), carrying ThrottlingReasons
//     [{"reason": "TableWriteKeyRangeThroughputExceeded" (or TableRead...),
//     "resource": the table's ARN}], the reason DynamoDB gives when one partition key's
//     traffic is over its partition's limit.
//   - TransactWriteItems: 2 write units per item, all or none; a refusal is a
//     TransactionCanceledException whose CancellationReasons hold, in item order,
//     "ProvisionedThroughputExceeded" (or "ThrottlingError" with OnDemand) for each
//     item over its key's capacity and "None" for the others.
//
// A request is refused at once: it never waits for its units. Other operations
// (CreateTable, DescribeTable, Query, ...) pass through uncharged. The request body is
// forwarded unchanged, so its signature stays valid.
package ddbthrottle
