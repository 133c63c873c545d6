// Package tenantstoretest is the conformance suite of tenantstore.Store: every
// implementation runs Run unchanged, against the real service, and is done when it
// passes. The suite covers conditional writes (including 20 concurrent replaces of one
// version, of which exactly one may win), pagination, key records (lookup by hash,
// revocation, near-miss keys, unknown hashes), and checks through Config.Dump that no
// raw key reaches storage.
package tenantstoretest
