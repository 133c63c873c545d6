// Package testenv connects tests to the services that `make test` starts: a real
// redis-server, the local Upstash-compatible REST server in front of it, Amazon's
// DynamoDB Local, the Lambda runtime interface emulator and the npm packages the
// tests drive (the official Upstash clients).
//
// scripts/services.sh installs and starts them, each on a free loopback port, and
// exports their addresses in the EDGELIMIT_TEST_* variables read here. Under a bare
// `go test ./...` the variables are unset and integration tests skip with a message;
// when CI is set they fail instead, so a CI run can never pass by skipping.
package testenv
