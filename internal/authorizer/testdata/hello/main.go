// Command hello is the smallest aws-lambda-go REST authorizer (package
// internal/authorizer/internal/hello): it allows every request. It is the baseline of the
// cold-start comparison in functions/authorizer (bootstrap size and the runtime's
// init), built the same way as the real authorizer.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/edgelimit/edgelimit/internal/authorizer/internal/hello"
)

func main() { lambda.Start(hello.Handle) }
