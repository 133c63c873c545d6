// Package buildcheck's tests run the Makefile targets that `sam build` runs
// (`make build-<LogicalId> ARTIFACTS_DIR=...`, for each function of template.yaml) and
// check what they leave in ARTIFACTS_DIR: a `bootstrap` that is a static, stripped
// Linux ELF for arm64 (the template's architecture) whatever GOOS and GOARCH the
// environment exports, for the LAMBDA_GOARCH given to make otherwise, built with
// -tags lambda.norpc, -trimpath and CGO off, with the time zone database embedded
// (pkg/tenant's zoneinfo folder, which every zone is loaded from, whatever the image's
// zoneinfo). TestBootstrapSizeAgainstHello bounds the authorizer's bootstrap against
// the hello-world's, and TestAuthorizerImports keeps packages it does not need (the
// SDK's DynamoDB expression builder and attribute marshaling) out of it.
// TestNoBuildOutputTracked keeps binaries and files over 1 MiB out of git.
//
// They need make and go on PATH. Without make they skip, or fail when CI is set, as
// the integration tests do. A cold build cache costs about a minute per GOARCH;
// `go test -short` skips the builds.
package buildcheck
