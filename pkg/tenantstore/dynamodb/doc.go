// Package dynamodb is the tenantstore.Store over Amazon DynamoDB (aws-sdk-go-v2), with
// conditional writes on the tenant's version.
//
// One table with a string partition key "pk" (CreateTable makes it) holds two kinds of
// items:
//
//	pk = "tenant#<id>"   doc (S): the tenant JSON; version (N): the condition of every
//	                     write; keys (M): key id -> key record JSON, the tenant's keys;
//	                     keyrev (N): bumped when a key is added or deleted
//	pk = "key#<sha256>"  doc (S): the key record JSON; tenant (S): its tenant id
//
// Replace is one UpdateItem conditioned on version, with ALL_OLD returned on failure to
// tell a missing tenant from a stale version without a read. Key writes are
// transactions (TransactWriteItems) over the key item and its tenant item, so the
// tenant's list and the lookup items never disagree; Delete removes the tenant and all
// its key items in one transaction conditioned on version and keyrev, so a key added
// meanwhile cannot outlive it. LookupKey is one strongly consistent GetItem by hash:
// a revocation takes effect at once.
//
// List is a strongly consistent Scan filtered on the "tenant#" prefix: the order is
// DynamoDB's (stable, not by id), and the page token encodes the key the scan resumes
// after, as LastEvaluatedKey does. A scan reads the key items too: List costs grow
// with the table, which suits an admin API over thousands of tenants, not more.
//
// The SDK client is passed in; for DynamoDB Local, build it with BaseEndpoint set (or
// AWS_ENDPOINT_URL_DYNAMODB). Point-in-time recovery belongs to the deployment
// template, not to CreateTable.
package dynamodb
