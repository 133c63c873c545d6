// Package tenantstore keeps tenants and their API key records: the Store interface,
// its sentinel errors, and the tenants file (EDGELIMIT_TENANTS_FILE).
//
// Every write of a tenant is conditional on its version, the admin API's ETag: Create
// fails with ErrExists when the id is taken and stores version 1; Replace and Delete
// take the version the caller read and fail with ErrVersionConflict when another write
// came first, so concurrent admins never lose an update silently. Keys are stored as
// apikey.Record values (the SHA-256 of the key, never the key) and looked up by hash.
//
// Implementations live in subpackages and pass the tenantstoretest conformance suite:
// memory (embedded; also what the tenants file loads into), dynamodb and upstash.
package tenantstore
