// Package docscheck's tests hold the repository to standing on its own: no tracked file
// (docs, code, comments, scripts) refers to a Markdown file that is not in the
// repository, such as a design or style document that lived beside it once, nor to a
// folder outside it. docs/design.md is the design; references go there. Every relative
// link of the README and docs/*.md reaches a file, and its #fragment a heading of it
// (so that a section moved between files leaves no link behind). They also hold
// docs/benchmarks.md's cost table to its own arithmetic: every row recomputed from its
// units and the prices the section states.
package docscheck
