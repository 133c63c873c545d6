package testenv_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/edgelimit/edgelimit/internal/testenv"
)

// These tests check the services scripts/services.sh starts, so that a broken test
// environment fails here, by name, rather than somewhere inside a backend's tests.

const serviceTimeout = 10 * time.Second

func TestRedisAnswersPing(t *testing.T) {
	addr := testenv.RedisAddr(t)
	ctx, cancel := context.WithTimeout(context.Background(), serviceTimeout)
	defer cancel()

	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("dial redis-server at %s: %v", addr, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "*1\r\n$4\r\nPING\r\n"); err != nil {
		t.Fatalf("send PING: %v", err)
	}
	reply, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("read the reply to PING: %v", err)
	}
	if reply != "+PONG\r\n" {
		t.Fatalf("PING got %q, want %q", reply, "+PONG\r\n")
	}
}

func TestDynamoDBLocalListsTables(t *testing.T) {
	endpoint := testenv.DynamoDBURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), serviceTimeout)
	defer cancel()

	// DynamoDB Local accepts any secret, but only access key ids of letters and digits.
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("edgelimittest", "edgelimittest", "")),
	)
	if err != nil {
		t.Fatal(err)
	}
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	})
	out, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatalf("ListTables on DynamoDB Local at %s: %v", endpoint, err)
	}
	if out.TableNames == nil {
		t.Fatalf("ListTables returned no TableNames field")
	}
}

func TestRIEIsExecutable(t *testing.T) {
	path := testenv.RIE(t)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s: mode %v, want an executable file", path, info.Mode())
	}
}

// TestNodeModulesHoldUpstashRedis checks that the installed @upstash/redis is the
// version node/package.json pins, so a stale install cannot go unnoticed.
func TestNodeModulesHoldUpstashRedis(t *testing.T) {
	dir := testenv.NodeModules(t)
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join("node", "package.json"), &manifest)
	want := manifest.Dependencies["@upstash/redis"] // 1.39.0, an exact version
	if want == "" {
		t.Fatal("node/package.json does not list @upstash/redis")
	}

	var installed struct {
		Version string `json:"version"`
	}
	readJSON(t, filepath.Join(dir, "@upstash", "redis", "package.json"), &installed)
	if installed.Version != want {
		t.Fatalf("installed @upstash/redis is %q, want %q", installed.Version, want)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestRedisClusterIsOK asks each node of the test Redis Cluster for CLUSTER INFO: the
// cluster is whole (every slot served) and has the three nodes it was made of.
func TestRedisClusterIsOK(t *testing.T) {
	nodes := testenv.RedisCluster(t)
	if len(nodes) != 3 {
		t.Fatalf("%s = %v, want 3 nodes", testenv.EnvRedisCluster, nodes)
	}
	for _, addr := range nodes {
		info := redisCommand(t, addr, "CLUSTER", "INFO")
		for _, want := range []string{"cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3", "cluster_size:3"} {
			if !strings.Contains(info, want+"\r\n") {
				t.Errorf("CLUSTER INFO on %s lacks %q:\n%s", addr, want, info)
			}
		}
	}
}

// redisCommand sends one command in RESP and returns the reply's first bulk string.
func redisCommand(t *testing.T, addr string, args ...string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, serviceTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(serviceTimeout))
	cmd := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		cmd += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	head, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") && !strings.HasPrefix(head, "=") {
		t.Fatalf("%v on %s: %q, %v", args, addr, head, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil {
		t.Fatalf("%v on %s: %q", args, addr, head)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		t.Fatal(err)
	}
	return string(body)
}
