package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

const versionUsage = `usage: edgelimit version

Prints the module version of this binary, the VCS revision it was built from (when
the build recorded one, as go build does in a git checkout), and the Go version.`

// runVersion is `edgelimit version`.
func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("edgelimit version", flag.ContinueOnError)
	if code := parseArgs(fs, versionUsage, args, stdout, stderr); code != proceed {
		return code
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, formatVersion(bi))
	return 0
}

// formatVersion is one line: "edgelimit VERSION (revision REV, TIME, modified) GOVERSION
// OS/ARCH", leaving out what the build info does not hold. bi may be nil.
func formatVersion(bi *debug.BuildInfo) string {
	version, goVersion := "(unknown)", runtime.Version()
	settings := map[string]string{}
	if bi != nil {
		version = cmp.Or(bi.Main.Version, version)
		goVersion = cmp.Or(bi.GoVersion, goVersion)
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "revision "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		vcs = append(vcs, t)
	}
	if settings["vcs.modified"] == "true" {
		vcs = append(vcs, "modified")
	}
	line := "edgelimit " + version
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	return line + " " + goVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
}
