package templatecheck

import (
	"reflect"
	"regexp"
	"slices"
	"testing"
)

const redisSecret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:redis-AbCdEf"

// Backend redis, evaluated for four deployments: each function gets the EDGELIMIT_REDIS_*
// variables only with Backend redis; VpcConfig (the subnets and security groups given)
// and the VPC access managed policy only when subnets are given; the AUTH token's
// secret (secretsmanager:GetSecretValue on that ARN alone) only when one is given. A
// deployment without Redis keeps the IAM of before: the basic execution role and its
// own statements.
func TestRedisBackend(t *testing.T) {
	tmpl := load(t)
	vpc := map[string]any{"SubnetIds": []any{"subnet-1", "subnet-2"}, "SecurityGroupIds": []any{"sg-1"}}
	for _, tc := range []struct {
		name   string
		params map[string]string
		env    map[string]any // the EDGELIMIT_REDIS_* variables, absent when nil
		vpc    map[string]any
		secret bool
	}{
		{"dynamodb", map[string]string{"Backend": "dynamodb"}, nil, nil, false},
		{"redis, no VPC, no AUTH", map[string]string{"Backend": "redis", "RedisEndpoint": "redis.example.com:6379"},
			map[string]any{"EDGELIMIT_REDIS_ADDR": "redis.example.com:6379", "EDGELIMIT_REDIS_CLUSTER": "false", "EDGELIMIT_REDIS_TLS": "true"}, nil, false},
		{"redis in a VPC with AUTH", map[string]string{"Backend": "redis", "RedisEndpoint": "clustercfg.x.cache.amazonaws.com:6379",
			"RedisCluster": "true", "RedisAuthTokenSecretArn": redisSecret, "RedisSubnetIds": "subnet-1,subnet-2", "RedisSecurityGroupIds": "sg-1"},
			map[string]any{"EDGELIMIT_REDIS_ADDR": "clustercfg.x.cache.amazonaws.com:6379", "EDGELIMIT_REDIS_CLUSTER": "true",
				"EDGELIMIT_REDIS_TLS": "true", "EDGELIMIT_REDIS_AUTH_TOKEN_SECRET_ARN": redisSecret}, vpc, true},
		{"upstash with subnets given", map[string]string{"Backend": "upstash", "UpstashRestUrl": "https://db.upstash.io",
			"UpstashTokenSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:tok-AbCdEf", "RedisSubnetIds": "subnet-1"}, nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := stackFor(tc.params)
			for _, fn := range []string{authorizers[tc.params["Backend"]], adminFunction} {
				props := evaluated(t, st, tmpl, mustResource(t, tmpl, fn, "AWS::Serverless::Function").Properties)
				env := map[string]any{}
				for k, v := range asMap(dig(props, "Environment", "Variables")) {
					if len(k) > 16 && k[:16] == "EDGELIMIT_REDIS_" {
						env[k] = v
					}
				}
				if tc.env == nil && len(env) > 0 || tc.env != nil && !reflect.DeepEqual(env, tc.env) {
					t.Errorf("%s: EDGELIMIT_REDIS_* = %v, want %v", fn, env, tc.env)
				}
				if got := props["VpcConfig"]; !reflect.DeepEqual(got, vpcOrNil(tc.vpc)) {
					t.Errorf("%s: VpcConfig = %v, want %v", fn, got, tc.vpc)
				}
				checkRedisRole(t, st, tmpl, fn, tc.vpc != nil, tc.secret)
			}
		})
	}
}

// vpcOrNil is what an absent VpcConfig reads as after evaluated: nil.
func vpcOrNil(v map[string]any) any {
	if v == nil {
		return nil
	}
	return v
}

// checkRedisRole checks the managed policies of fn's role (the VPC access one only
// in a VPC) and what its statements grant on the Redis token's secret.
func checkRedisRole(t *testing.T, st Stack, tmpl map[string]any, fn string, inVPC, secret bool) {
	t.Helper()
	roleID, _, _ := getAttOf(mustResource(t, tmpl, fn, "AWS::Serverless::Function").Properties["Role"])
	role := evaluated(t, st, tmpl, mustResource(t, tmpl, roleID, "AWS::IAM::Role").Properties)
	want := []string{"arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"}
	if inVPC {
		want = append(want, "arn:aws:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole")
	}
	if got := asStrings(role["ManagedPolicyArns"]); !slices.Equal(got, want) {
		t.Errorf("%s: ManagedPolicyArns = %v, want %v", roleID, got, want)
	}
	var onSecret []string
	for _, st := range statements(role["Policies"]) {
		if slices.Contains(asStrings(st["Resource"]), redisSecret) || st["Resource"] == redisSecret {
			onSecret = append(onSecret, asStrings(st["Action"])...)
		}
	}
	if wantActions := map[bool][]string{true: {"secretsmanager:GetSecretValue"}}[secret]; !slices.Equal(onSecret, wantActions) {
		t.Errorf("%s: on the Redis token secret %v, want %v", roleID, onSecret, wantActions)
	}
}

// evaluated is props as CloudFormation resolves them for the stack.
func evaluated(t *testing.T, st Stack, tmpl map[string]any, props map[string]any) map[string]any {
	t.Helper()
	v, err := st.Evaluate(tmpl, props)
	if err != nil {
		t.Fatal(err)
	}
	return asMap(v)
}

// RedisEndpoint takes host:port, or several, and refuses URLs and missing ports.
func TestRedisEndpointPattern(t *testing.T) {
	pattern := regexp.MustCompile("^(?:" + asString(dig(load(t), "Parameters", "RedisEndpoint", "AllowedPattern")) + ")$")
	for endpoint, want := range map[string]bool{
		"": true, "master.x.cache.amazonaws.com:6379": true, "10.0.0.5:6379,10.0.1.5:6379": true,
		"redis://x:6379": false, "x.cache.amazonaws.com": false, "x:6379,": false, "x :6379": false,
	} {
		if pattern.MatchString(endpoint) != want {
			t.Errorf("RedisEndpoint %q: accepted %v, want %v", endpoint, !want, want)
		}
	}
}
