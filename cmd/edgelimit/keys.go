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

const keysUsage = `usage: edgelimit keys new --tenant ID
       edgelimit keys hash [KEY]

new   makes an API key for tenant ID. Prints the key (shown once: hand it to
      the tenant; it is stored nowhere) on the first line, then the entry to add
      to the "keys" of a tenants file (EDGELIMIT_TENANTS_FILE).
hash  prints the SHA-256 hex of KEY, or of the first line of stdin without KEY
      (stdin keeps the key out of shell history and process listings).`

// runKeys is `edgelimit keys`: it makes and hashes API keys for a tenants file.
func runKeys(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, keysUsage)
		return 2
	}
	switch args[0] {
	case "new":
		return runKeysNew(args[1:], stdout, stderr)
	case "hash":
		return runKeysHash(args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "edgelimit keys: unknown subcommand %q\n%s\n", args[0], keysUsage)
	return 2
}

func runKeysNew(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit keys new", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tenantID := fs.String("tenant", "", "the tenant the key belongs to")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *tenantID == "" {
		fmt.Fprintln(stderr, keysUsage)
		return 2
	}
	if !tenant.ValidID(*tenantID) {
		fmt.Fprintf(stderr, "edgelimit keys new: --tenant %q: a tenant id is 1 to 63 lowercase letters, digits, '_' or '-', starting with a letter or digit\n", *tenantID)
		return 2
	}
	key := apikey.New()
	entry, err := json.Marshal(store.FileKey{TenantID: *tenantID, KeyID: key.ID(), Hash: key.Hash()})
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit keys new: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, key.Reveal())
	fmt.Fprintln(stdout, string(entry))
	fmt.Fprintln(stderr, "edgelimit keys new: the key is shown only now; add the entry to the tenants file's \"keys\"")
	return 0
}

// maxKeyLine bounds what `keys hash` reads from stdin.
const maxKeyLine = 4096

func runKeysHash(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var raw string
	switch {
	case len(args) == 1 && args[0] != "-h" && args[0] != "--help":
		raw = args[0]
	case len(args) == 0:
		line, err := bufio.NewReaderSize(io.LimitReader(stdin, maxKeyLine), maxKeyLine).ReadString('\n')
		if err != nil && err != io.EOF {
			fmt.Fprintf(stderr, "edgelimit keys hash: reading stdin: %v\n", err)
			return 1
		}
		raw = line
	default:
		fmt.Fprintln(stderr, keysUsage)
		return 2
	}
	key, err := apikey.Parse(strings.TrimSpace(raw))
	if err != nil {
		fmt.Fprintf(stderr, "edgelimit keys hash: %v\n", err) // never echoes the input
		return 2
	}
	fmt.Fprintln(stdout, key.Hash())
	return 0
}
