package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// knownNames are the EDGELIMIT_* variables that Load reads.
var knownNames = []string{
	EnvBackend, EnvTenantsTable, EnvCountersTable, EnvTenantsFile,
	EnvUpstashLocking, EnvUpstashPipelining, EnvUpstashPrefix,
	EnvKeyHeader, EnvLatencyBudget, EnvConfigTTL, EnvHTTPAPIResponse, EnvFailMode,
	EnvAnonymousTenant, EnvUsageIdentifier, EnvLogLevel, EnvDefaultRules,
	EnvHotCounters, EnvHotThreshold, EnvHotLeaseTime,
	EnvRedisAddr, EnvRedisCluster, EnvRedisTLS, EnvRedisUsername, EnvRedisToken,
	EnvRedisSecretARN, EnvRedisPrefix, EnvReservationSecret, EnvReservationSecretARN,
}

// namePrefix starts every variable of edgelimit's own.
const namePrefix = "EDGELIMIT_"

// scriptNames are the prefixes of the variables that the test scripts set for
// themselves (scripts/services.sh and the tests): CheckNames lets them pass.
var scriptNames = []string{"EDGELIMIT_TEST_", "EDGELIMIT_TOOLS", "EDGELIMIT_SERVICES"}

// CheckNames refuses an environment, given as os.Environ returns it ("NAME=value"),
// that sets an EDGELIMIT_* variable Load does not read: a misspelt name would
// otherwise leave its setting at the default without a word. The error names the
// variable and the closest known one. Names the test scripts use pass:
// EDGELIMIT_TEST_*, EDGELIMIT_TOOLS and EDGELIMIT_SERVICES*. Other names (AWS_*,
// UPSTASH_*) are not checked: the process shares them with other programs.
func CheckNames(environ []string) error {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, namePrefix) || isKnown(name) {
			continue
		}
		return fmt.Errorf("config: %s is not a variable edgelimit reads; did you mean %s?", name, closestName(name))
	}
	return nil
}

func isKnown(name string) bool {
	return slices.Contains(knownNames, name) ||
		slices.ContainsFunc(scriptNames, func(prefix string) bool { return strings.HasPrefix(name, prefix) })
}

// closestName is the known name at the least edit distance from name, the first in
// knownNames of those at the same distance.
func closestName(name string) string {
	best, bestDistance := "", -1
	for _, known := range knownNames {
		d := levenshtein.ComputeDistance(strings.ToUpper(name), known)
		if bestDistance < 0 || d < bestDistance {
			best, bestDistance = known, d
		}
	}
	return best
}
