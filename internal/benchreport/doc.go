// Command benchreport is `make bench`: it runs every benchmark that has a peer, each in
// one `go test -bench` run with its peer, reads their output with
// golang.org/x/perf/benchfmt (each figure the median benchmath gives), and writes
// docs/benchmarks.md (the machine, a headline of ratios against the peers, a table per
// package, and what a million decisions cost on each store), the SVG charts it shows
// (docs/bench-ratios.svg, docs/bench-upstash.svg), and the figures block of README.md.
// Run it with the test services up (the Makefile's bench target starts them with
// scripts/services.sh):
//
//	go run ./internal/benchreport [-root DIR] [-count N]
//
// The runs and their peers are the table in suites.go; the report's prose (its head,
// the note under each suite's table, the cost section's) and README.md's figures block
// are the templates of prose.tmpl. A figure whose benchmark did not run is "not
// measured". Its test checks the parser, the report, and that every figure README.md
// quotes is in docs/benchmarks.md.
package main
