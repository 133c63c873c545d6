// Package templatecheck reads template.yaml, the AWS SAM template, the way
// CloudFormation does, and its tests pin what the template promises, with no SAM CLI
// and no AWS account:
//
//   - the authorizer is the default on every route of the rate-limited API, with
//     result caching off (ReauthorizeEvery 0), identified by the x-api-key header;
//   - ACCESS_DENIED (the authorizer's Deny) answers 429 with the decision in the body
//     and a static Retry-After;
//   - every admin route is behind AWS_IAM, on an API of its own;
//   - DynamoDB tables exist only for Backend dynamodb, the counters table with TTL on
//     expires_at and the tenants table with point-in-time recovery;
//   - both functions are arm64 provided.al2023 "bootstrap"s built by the Makefile's
//     build-<LogicalId> targets;
//   - every IAM statement names its actions and the stack's tables, the token secret
//     or its KMS key (kms:Decrypt through Secrets Manager, only when
//     UpstashTokenKmsKeyArn or RedisAuthTokenKmsKeyArn is set), no wildcards; no parameter or variable carries
//     the Upstash token itself;
//   - each function has its log group, /aws/lambda/<name>, kept LogRetentionDays;
//   - environment variable names are the documented ones, every Ref, GetAtt, Sub and
//     condition resolves, and a conditional resource is referenced only under its
//     condition (a deploy-time failure otherwise);
//   - samconfig.toml deploys the stack with overrides the template accepts, and
//     builds in the source folder (no copy of .tools/);
//   - the dashboard and the alarms chart only metrics that exist: the test runs the
//     authorizer and reads the EMF it writes (namespace, names, dimension sets), and
//     checks each Lambda or DynamoDB metric against the stack's functions, tables and
//     IAM grants; every alarm is named after the stack, notifies AlarmTopicArn exactly
//     when it is given, and is explained in the README; docs/dashboard.svg is the
//     dashboard's layout, redrawn from the template;
//   - cfn-lint, which runs the SAM transform first, finds nothing.
//
// Stack.Evaluate resolves Ref, Fn::GetAtt, Fn::Sub, Fn::If and the conditions for
// given parameters, as CloudFormation would, so that the dashboard body can be read
// as the JSON CloudWatch receives.
//
// Parse turns CloudFormation's short-form tags (!Ref, !Sub, !GetAtt, !If ...) into
// the long form ({"Ref": ...}, {"Fn::Sub": ...}), so the tests walk plain maps.
// ParseFile reads any template path, and Stack.Evaluate evaluates any template; the
// tests read template.yaml through load.
//
// github.com/awslabs/goformation/v7 (v7.14.9, tried) does not serve: its typed
// Template cannot hold this one (AWS::Serverless::Api's GatewayResponses and
// AWS::Serverless::Function's Environment.Variables are map[string]string there, so a
// gateway response or an !If variable fails to unmarshal); its intrinsics.ProcessYAML
// turns !Condition, and any tag it does not know, into a plain string, keeps !GetAtt
// R.Attr unsplit, and writes its tag table, a package-level map, on every call (a data
// race between parallel tests); and its evaluator resolves a Ref or GetAtt of a
// resource to nothing, where the checks need the resource it names.
package templatecheck
