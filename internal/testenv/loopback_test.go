package testenv

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestServicesListenOnLoopbackOnly reads the kernel's socket tables: every service that
// make test starts listens on 127.0.0.1 (or ::1) alone, the Redis Cluster's buses too.
// DynamoDB Local, which has no option for it, gets there through the LD_PRELOAD shim
// scripts/loopback.c.
func TestServicesListenOnLoopbackOnly(t *testing.T) {
	dynamo, err := url.Parse(DynamoDBURL(t))
	if err != nil {
		t.Fatal(err)
	}
	upstash, _ := UpstashURL(t)
	up, err := url.Parse(upstash)
	if err != nil {
		t.Fatal(err)
	}
	redis := RedisAddr(t)
	ports := map[string]string{"DynamoDB Local": dynamo.Port(), "upstash-local": up.Port(), "redis-server": redis[strings.LastIndex(redis, ":")+1:]}
	for i, node := range RedisCluster(t) {
		port := node[strings.LastIndex(node, ":")+1:]
		n, err := strconv.Atoi(port)
		if err != nil {
			t.Fatalf("cluster node %q: %v", node, err)
		}
		ports[fmt.Sprintf("Redis Cluster node %d", i+1)] = port
		ports[fmt.Sprintf("Redis Cluster node %d's bus", i+1)] = strconv.Itoa(n + 10000)
	}
	for name, port := range ports {
		addrs := listeners(t, port)
		if len(addrs) == 0 {
			t.Errorf("%s: nothing listens on port %s", name, port)
		}
		for _, a := range addrs {
			if a != "0100007F" && a != "00000000000000000000000001000000" {
				t.Errorf("%s listens on %s (hex, kernel order) port %s, not loopback only", name, a, port)
			}
		}
	}
}

// listeners returns the local addresses (hex, as /proc/net/tcp{,6} write them) of the
// sockets listening on port.
func listeners(t *testing.T, port string) []string {
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatalf("port %q: %v", port, err)
	}
	want := strings.ToUpper(strconv.FormatInt(int64(n), 16))
	for len(want) < 4 {
		want = "0" + want
	}
	var out []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			addr, p, _ := strings.Cut(f[1], ":")
			if p == want {
				out = append(out, addr)
			}
		}
	}
	return out
}
