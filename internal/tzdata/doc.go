// Package tzdata loads IANA time zones from the system, or else from a copy of Go's
// time zone database embedded compressed: the zone files of Go's lib/time/zoneinfo.zip,
// each distinct file once, in 16 chunks DEFLATEd one by one after an index of the
// zones (zoneinfo.chunks, 83 kB where the standard library's time/tzdata embeds 408 kB
// uncompressed; format.go describes it). The Lambda functions use it instead of
// importing time/tzdata: the provided.al2023 image may lack /usr/share/zoneinfo.
//
// The first zone the system does not have parses the index and decompresses that
// zone's chunk (at most 16 kB of the 231 kB of distinct zone files); each chunk is
// decompressed once, on the first zone it holds, and kept. BenchmarkFirstLookup
// measures that first lookup at 1/22 of the time and 1/14 of the bytes allocated of
// decompressing the whole database (the gzipped zoneinfo.zip embedded before), and 7
// times the time of time/tzdata's lookup (internal/stdpeer's BenchmarkFirstLookup),
// which decompresses nothing.
//
// go generate refreshes the copy from the Go toolchain in use (internal/gen);
// TestEveryZoneOfGoIsEmbedded fails when the two differ.
package tzdata
