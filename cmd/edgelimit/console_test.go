package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/edgelimit/edgelimit/internal/testenv"
	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// browser starts headless Chromium (Debian's package) with a fresh profile, talking
// to it over a pipe (no debugging port), and returns a tab's context and the page's
// console errors so far.
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	path := testenv.Chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1100),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	var mu sync.Mutex
	var errs []string
	go func() {
		for m, err := range chromedp.Console(tab) {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				errs = append(errs, m.String())
				mu.Unlock()
			}
		}
	}()
	return tab, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

// until polls a JavaScript predicate in the page (the page itself polls the admin API
// each second) for at most 15 s.
func until(ctx context.Context, t *testing.T, what, predicate string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](predicate, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main").innerText`))
		t.Fatalf("the page never showed %s (%s): %v\n%s", what, predicate, err, page)
	}
}

// screenshot is where TestConsoleInBrowser writes its screenshot: `make screenshot`
// passes docs/console.png; by default a file of the test's temporary folder, so that
// no test rewrites a tracked file.
var screenshot = flag.String("screenshot", "", "write the console's screenshot to this `file` (make screenshot: docs/console.png)")

// TestConsoleInBrowser loads the console from `edgelimit dev` in headless Chromium,
// creates a tenant and a key through the page, sends requests until a 429, and checks
// that the page shows the tenant's usage (the rule full, its reset in the tenant's
// zone) and the denial in its chart of recent decisions; then it runs the page's
// simulation and compares each rule's count with `edgelimit simulate`'s. It writes a
// screenshot (-screenshot; `make screenshot` redraws docs/console.png).
func TestConsoleInBrowser(t *testing.T) {
	tab, consoleErrors := browser(t)
	base, _ := startDevBinary(t)
	const rules = `[{"name": "hourly", "algorithm": "fixed_window", "limit": 3, "period": "1h", "anchor": "first_request"}]`
	err := chromedp.Do(tab, chromedp.Navigate(base+"/console/"), chromedp.WaitVisible(chromedp.ID("create-tenant")),
		chromedp.SetValue(chromedp.ID("new-id"), "browser"), chromedp.SetValue(chromedp.ID("new-timezone"), "Asia/Tokyo"),
		chromedp.SetValue(chromedp.ID("new-rules"), rules), chromedp.Click(chromedp.ID("create")))
	if err != nil {
		t.Fatal(err)
	}
	until(tab, t, "the new tenant, selected", `document.getElementById("tenant-title").textContent === "Tenant browser" && !!document.querySelector('#tenants button[data-tenant="browser"].selected')`)
	if err := chromedp.Do(tab, chromedp.Click(chromedp.ID("issue-key")), chromedp.WaitVisible(chromedp.ID("new-key"))); err != nil {
		t.Fatal(err)
	}
	key, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("new-key")))
	if err != nil || !strings.HasPrefix(key, "elk_") {
		t.Fatalf("the page shows key %q, %v", key, err)
	}
	statuses := sendUntilDenied(t, base, key)
	until(tab, t, "the rule used up", `[...document.querySelectorAll('#usage tr.rule-row[data-rule="hourly"] td.used')].some(td => td.textContent === "3 / 3")`)
	until(tab, t, "the denial in the chart", `Number(document.getElementById("denied-total").textContent) >= 1 && Number(document.getElementById("allowed-total").textContent) === 3 && document.querySelectorAll("#traffic rect.denied-bar").length >= 1`)
	reset, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(`#usage tr.rule-row[data-rule="hourly"] td.reset`)))
	if err != nil || !strings.Contains(reset, "GMT+9") {
		t.Errorf("the reset %q, %v: want it in the tenant's zone (Asia/Tokyo, GMT+9)", reset, err)
	}
	checkSimulation(t, tab)
	writeScreenshot(t, tab)
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the page logged errors: %q", errs)
	}
	t.Logf("statuses %v", statuses)
}

// writeScreenshot writes the page to -screenshot, or to the test's temporary folder.
func writeScreenshot(t *testing.T, tab context.Context) {
	t.Helper()
	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := *screenshot
	if path == "" {
		path = filepath.Join(t.TempDir(), "console.png")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s, %d bytes", path, len(shot))
}

// sendUntilDenied sends requests with the key until one is denied (at most 10), and
// checks that the first three were allowed.
func sendUntilDenied(t *testing.T, base, key string) []int {
	t.Helper()
	var statuses []int
	for range 10 {
		resp := do(t, "GET", base+"/orders", key, "")
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == http.StatusTooManyRequests {
			break
		}
	}
	if fmt.Sprint(statuses) != "[200 200 200 429]" {
		t.Fatalf("statuses %v, want three allowed, then 429", statuses)
	}
	return statuses
}

// checkSimulation runs the page's simulation of its default trace and rules, and
// compares what the page shows for each rule with `edgelimit simulate` on the same
// input.
func checkSimulation(t *testing.T, tab context.Context) {
	t.Helper()
	trace, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("trace").value`))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("sim-rules").value`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.ID("run-sim"))); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(rules), "\n")
	until(tab, t, "the simulation", fmt.Sprintf(`document.querySelectorAll("#sim-results tbody tr").length === %d && document.querySelectorAll("#sim-chart circle").length > 0`, len(lines)))
	shown, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#sim-results tbody tr")].map(tr => tr.dataset.rule + ": " + tr.querySelector("td.allowed").textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range lines {
		var out, errs bytes.Buffer
		if code := run([]string{"simulate", "--rule", line, "--trace", "-"}, strings.NewReader(trace), &out, &errs); code != 0 {
			t.Fatalf("edgelimit simulate --rule %s: exit %d: %s", line, code, errs.String())
		}
		rule, err := limiter.ParseRule([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		summary := out.String()[strings.LastIndex(strings.TrimSpace(out.String()), "\n")+1:]
		want := string(rule.Algorithm) + ": " + strings.TrimSpace(strings.TrimPrefix(summary, "allowed "))
		if i >= len(shown) || shown[i] != want {
			t.Errorf("the page shows %q, want %q (edgelimit simulate)", shown, want)
			return
		}
	}
}
