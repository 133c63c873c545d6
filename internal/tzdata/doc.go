// Package tzdata loads IANA time zones from the system, or else from a copy of Go's
// time zone database embedded compressed: Go's lib/time/zoneinfo.zip, gzipped
// (zoneinfo.zip.gz, 95 kB where the standard library's time/tzdata embeds 408 kB
// uncompressed). The Lambda functions use it instead of importing time/tzdata: the
// provided.al2023 image may lack /usr/share/zoneinfo, and the 313 kB saved are a
// twenty-eighth of the authorizer's bootstrap. The copy is decompressed once, on the
// first zone the system does not have.
//
// go generate refreshes the copy from the Go toolchain in use; TestTheCopyIsGosDatabase
// fails when the two differ.
package tzdata
