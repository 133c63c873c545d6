// Package stdpeer holds the standard library's peer of internal/tzdata's
// BenchmarkFirstLookup: the first lookup of a zone in time/tzdata, the uncompressed
// copy of Go's zoneinfo.zip that the standard library embeds. Importing time/tzdata
// makes time.LoadLocation fall back on it, so it has a test binary of its own, where
// it changes no other test. It has nothing but tests.
package stdpeer
