package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

const (
	keysNewUsage = `usage: edgelimit keys new --tenant ID

Makes an API key for tenant ID. Prints the key (shown once: hand it to the tenant;
it is stored nowhere) on the first line, then the entry to add to the "keys" of a
tenants file (EDGELIMIT_TENANTS_FILE).`
	keysHashUsage = `usage: edgelimit keys hash [KEY]

Prints the SHA-256 hex of KEY, or of the first line of stdin without KEY (stdin
keeps the key out of shell history and process listings).`
	keysUsage = `usage: edgelimit keys new --tenant ID
       edgelimit keys hash [KEY]

new   makes an API key for a tenants file, shown once.
hash  prints the SHA-256 hex of a key.

` + "`edgelimit keys new --help` and `edgelimit keys hash --help`" + ` describe each.`
)

// runKeys is `edgelimit keys`: it makes and hashes API keys for a tenants file.
func runKeys(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit keys", flag.ContinueOnError)
	if len(args) > 0 {
		switch args[0] {
		case "new":
			return runKeysNew(args[1:], stdout, stderr)
		case "hash":
			return runKeysHash(args[1:], stdin, stdout, stderr)
		}
	}
	if code := parseFlags(fs, keysUsage, args, stdout, stderr); code != proceed {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(stderr, fs, keysUsage, "missing subcommand: new or hash")
	}
	return usageError(stderr, fs, keysUsage, "unknown subcommand %q", fs.Arg(0))
}

func runKeysNew(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit keys new", flag.ContinueOnError)
	tenantID := fs.String("tenant", "", "the `id` of the tenant the key belongs to (required)")
	if code := parseArgs(fs, keysNewUsage, args, stdout, stderr); code != proceed {
		return code
	}
	if *tenantID == "" {
		return usageError(stderr, fs, keysNewUsage, "--tenant is required")
	}
	if !tenant.ValidID(*tenantID) {
		return usageError(stderr, fs, keysNewUsage, "--tenant %q: a tenant id is 1 to 63 lowercase letters, digits, '_' or '-', starting with a letter or digit", *tenantID)
	}
	key := apikey.New()
	entry, _ := json.Marshal(store.FileKey{TenantID: *tenantID, KeyID: key.ID(), Hash: key.Hash()}) // strings always marshal
	fmt.Fprintln(stdout, key.Reveal())
	fmt.Fprintln(stdout, string(entry))
	fmt.Fprintln(stderr, "edgelimit keys new: the key is shown only now; add the entry to the tenants file's \"keys\"")
	return 0
}

// maxKeyLine bounds what `keys hash` reads from stdin.
const maxKeyLine = 4096

func runKeysHash(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit keys hash", flag.ContinueOnError)
	if code := parseFlags(fs, keysHashUsage, args, stdout, stderr); code != proceed {
		return code
	}
	var raw string
	switch fs.NArg() {
	case 0:
		line, err := bufio.NewReaderSize(io.LimitReader(stdin, maxKeyLine), maxKeyLine).ReadString('\n')
		if err != nil && err != io.EOF {
			fmt.Fprintf(stderr, "edgelimit keys hash: reading stdin: %v\n", err)
			return 1
		}
		raw = line
	case 1:
		raw = fs.Arg(0)
	default:
		return usageError(stderr, fs, keysHashUsage, "one KEY at most, got %d arguments", fs.NArg())
	}
	key, err := apikey.Parse(strings.TrimSpace(raw))
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit keys hash: %v\n", err) // never echoes the input
		return 2
	}
	fmt.Fprintln(stdout, key.Hash())
	return 0
}
