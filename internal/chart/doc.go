// Package chart draws docs/algorithms.svg: how each algorithm treats one burst of
// traffic, from the lines `edgelimit simulate` prints (internal/simulate's Decide), so
// the picture in the README cannot drift from what the limiter does. TestChart regenerates it and fails
// when the committed file differs (go test ./internal/chart -update rewrites it).
package chart
