package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/edgelimit/edgelimit/pkg/store"
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
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

// clickWhenThere clicks the element that selector finds, once, as soon as there is one:
// in the page's own JavaScript, in one step, so that a redraw of the page between
// finding the node and clicking it (the keys table is drawn anew every second) cannot
// leave the click on a node that is gone, as chromedp.Click's two steps can.
func clickWhenThere(ctx context.Context, t *testing.T, what, selector string) {
	t.Helper()
	until(ctx, t, what, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.click(); return true })()`, selector))
}

// screenshot is where TestConsoleInBrowser writes its screenshot: `make screenshot`
// passes docs/console.png; by default a file of the test's temporary folder, so that
// no test rewrites a tracked file.
var screenshot = flag.String("screenshot", "", "write the console's screenshot to this `file` (make screenshot: docs/console.png)")

// browserRules are the browser tenant's: one rule of each scope.
const browserRules = `[{"name": "hourly", "algorithm": "fixed_window", "limit": 3, "period": "1h", "anchor": "first_request"},
 {"name": "per-key", "algorithm": "fixed_window", "limit": 10, "period": "1h", "scope": "key"},
 {"name": "per-ip", "algorithm": "fixed_window", "limit": 20, "period": "1h", "scope": "ip"}]`

// TestConsoleInBrowser loads the console from `edgelimit dev` in headless Chromium,
// creates a tenant with a rule of each scope through the page, and checks that the
// page shows the tenant-wide rule before any key exists and once however many keys
// there are, the key rule per key and the ip rule for the address; it sends requests
// until a 429 and checks the usage (the rule full, its reset in the tenant's zone) and
// the denial in the chart of recent decisions; then it runs the page's simulation
// (compared with `edgelimit simulate`, no dot hiding another), revokes a key (after a
// confirmation) and issues keys until the page shows the 409.
func TestConsoleInBrowser(t *testing.T) {
	if *screenshot == "" {
		// It rewrote docs/console.png on every run (make test-unit left it modified).
		keepsFile(t, filepath.Join(testenv.ModuleRoot(t), "docs", "console.png"))
	}
	tab, consoleErrors := browser(t)
	base, _ := startDevBinary(t)
	err := chromedp.Do(tab, chromedp.Navigate(base+"/console/"), chromedp.WaitVisible(chromedp.ID("create-tenant")),
		chromedp.SetValue(chromedp.ID("new-id"), "browser"), chromedp.SetValue(chromedp.ID("new-timezone"), "Asia/Tokyo"),
		chromedp.SetValue(chromedp.ID("new-rules"), browserRules), chromedp.Click(chromedp.ID("create")))
	if err != nil {
		t.Fatal(err)
	}
	until(tab, t, "the new tenant, selected", `document.getElementById("tenant-title").textContent === "Tenant browser" && !!document.querySelector('#tenants button[data-tenant="browser"].selected')`)
	until(tab, t, "the tenant-wide and ip rules of a tenant without keys", usageShows(`[data-scope="tenant"]`, "hourly", "0 / 3")+" && "+usageShows(`[data-scope="ip"]`, "per-ip", "0 / 20")+
		` && document.querySelector('#usage div[data-scope="key"]').textContent.includes("no key yet")`)
	key := issueKeyInPage(t, tab)
	statuses := sendUntilDenied(t, base, key)
	second := keyIDOf(t, base, issueKeyInPage(t, tab))
	first := fmt.Sprintf(`[data-key=%q]`, keyIDOf(t, base, key))
	until(tab, t, "each rule once in its scope's section, used", usageShows(`[data-scope="tenant"]`, "hourly", "3 / 3")+" && "+
		usageShows(first, "per-key", "3 / 10")+" && "+usageShows(fmt.Sprintf(`[data-key=%q]`, second), "per-key", "0 / 10")+" && "+
		usageShows(`[data-scope="ip"]`, "per-ip", "3 / 20")+` && document.querySelectorAll('#usage tr[data-rule="hourly"]').length === 1`+
		` && document.querySelectorAll('#usage div[data-scope="key"]').length === 2`)
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
	checkRevokeAsks(t, tab, base, key)
	checkIssueRefusal(t, tab, base)
	checkPlanShown(t, tab, base)
	t.Logf("statuses %v", statuses)
}

// checkPlanShown: a tenant on a plan shows its plan, the plan's version and rules, and
// its active override.
func checkPlanShown(t *testing.T, tab context.Context, base string) {
	t.Helper()
	end := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, put := range [][2]string{
		{"/admin/plans/pro", `{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 1000, "period": "day"}]}`},
		{"/admin/tenants/onplan", `{"plan": "pro", "overrides": [{"rules": [{"name": "daily", "algorithm": "fixed_window", "limit": 5000, "period": "day"}], "until": "` + end + `"}]}`},
	} {
		if resp := do(t, "PUT", base+put[0], "", put[1]); resp.StatusCode != http.StatusCreated {
			t.Fatalf("PUT %s: %s", put[0], resp.Status)
		}
	}
	clickWhenThere(tab, t, "the tenant on the plan", `#tenants button[data-tenant="onplan"]`)
	shown := `document.getElementById("tenant-plan").textContent === "plan pro (version 1): daily 1000/day"` +
		` && document.querySelectorAll("#tenant-overrides li").length === 1` +
		` && document.querySelector("#tenant-overrides li").textContent.endsWith("daily 5000/day")`
	until(tab, t, "its plan and its active override", shown)
}

// keepsFile fails the test if the tracked file at path differs when the test ends.
func keepsFile(t *testing.T, path string) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
			t.Errorf("the test changed %s (%v): only make screenshot may", path, err)
		}
	})
}

// usageShows is a predicate: the usage section that section selects ([data-scope=...]
// or [data-key=...]) shows rule's row once, used as used.
func usageShows(section, rule, used string) string {
	return fmt.Sprintf(`[...document.querySelectorAll('#usage div%s tr.rule-row[data-rule="%s"] td.used')].map(td => td.textContent).join() === %q`, section, rule, used)
}

// issueKeyInPage clicks "Issue a key" and returns the key the page shows.
func issueKeyInPage(t *testing.T, tab context.Context) string {
	t.Helper()
	before, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("new-key").textContent`))
	if err := chromedp.Do(tab, chromedp.Click(chromedp.ID("issue-key"))); err != nil {
		t.Fatal(err)
	}
	until(tab, t, "a new key", fmt.Sprintf(`!document.getElementById("new-key-box").hidden && document.getElementById("new-key").textContent.startsWith("elk_") && document.getElementById("new-key").textContent !== %q`, before))
	key, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("new-key")))
	if err != nil {
		t.Fatal(err)
	}
	return key
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

// checkRevokeAsks: Revoke asks first; Cancel keeps the key; "Yes, revoke" revokes it.
func checkRevokeAsks(t *testing.T, tab context.Context, base, key string) {
	t.Helper()
	keyID := keyIDOf(t, base, key)
	row := fmt.Sprintf(`#keys tr[data-key=%q]`, keyID)
	clickWhenThere(tab, t, "Revoke", row+" button.revoke")
	until(tab, t, "the confirmation", fmt.Sprintf(`!!document.querySelector(%q)`, row+" button.confirm-revoke"))
	if resp := do(t, "GET", base+"/hello", key, ""); resp.StatusCode == http.StatusUnauthorized {
		t.Fatal("the key was revoked before the confirmation")
	}
	clickWhenThere(tab, t, "Cancel", row+" button.cancel-revoke")
	until(tab, t, "the key kept", fmt.Sprintf(`!!document.querySelector(%q) && !document.querySelector(%q)`, row+" button.revoke", row+" button.confirm-revoke"))
	if keyRevoked(t, base, keyID) {
		t.Fatal("Cancel revoked the key")
	}
	clickWhenThere(tab, t, "Revoke", row+" button.revoke")
	clickWhenThere(tab, t, "the confirmation", row+" button.confirm-revoke")
	until(tab, t, "the key revoked", fmt.Sprintf(`document.querySelector(%q).textContent.includes("revoked")`, row))
	if !keyRevoked(t, base, keyID) {
		t.Fatal("the page shows the key revoked; the admin API does not")
	}
}

// checkIssueRefusal fills the tenant's keys up to the most through the admin API,
// then clicks "Issue a key": the page says why it got no key (409).
func checkIssueRefusal(t *testing.T, tab context.Context, base string) {
	t.Helper()
	for i := 0; ; i++ {
		status := do(t, "POST", base+"/admin/tenants/browser/keys", "", "").StatusCode
		if status == http.StatusConflict {
			break
		}
		if status != http.StatusCreated || i > store.MaxKeysPerTenant {
			t.Fatalf("issuing key %d: %d", i, status)
		}
	}
	if err := chromedp.Do(tab, chromedp.Click(chromedp.ID("issue-key"))); err != nil {
		t.Fatal(err)
	}
	until(tab, t, "the refusal", `document.getElementById("key-status").classList.contains("error") && document.getElementById("key-status").textContent.includes("409") && document.getElementById("new-key-box").hidden`)
}

// keyIDOf finds the id of key among the browser tenant's keys (elk_<key id>_...).
func keyIDOf(t *testing.T, base, key string) string {
	t.Helper()
	for _, k := range browserKeys(t, base) {
		if strings.HasPrefix(key, "elk_"+k.KeyID+"_") {
			return k.KeyID
		}
	}
	t.Fatalf("no key of the browser tenant has the prefix of %q", key)
	return ""
}

func keyRevoked(t *testing.T, base, keyID string) bool {
	t.Helper()
	for _, k := range browserKeys(t, base) {
		if k.KeyID == keyID {
			return k.Revoked
		}
	}
	t.Fatalf("no key %s", keyID)
	return false
}

type keyJSON struct {
	KeyID   string `json:"key_id"`
	Revoked bool   `json:"revoked"`
}

func browserKeys(t *testing.T, base string) []keyJSON {
	t.Helper()
	resp := do(t, "GET", base+"/admin/tenants/browser/keys", "", "")
	defer resp.Body.Close()
	var body struct{ Keys []keyJSON }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("listing keys: %d %v", resp.StatusCode, err)
	}
	return body.Keys
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
	checkNoDotHidden(t, tab)
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

// noDotHidden is a predicate: the simulation chart has a dot per decision shown, and
// no two dots overlap (a burst at one instant drew its requests in four places, the
// denied over the allowed).
const noDotHidden = `(() => {
  const dots = [...document.querySelectorAll("#sim-chart circle")].map(c => [c.cx.baseVal.value, c.cy.baseVal.value, c.r.baseVal.value]);
  const total = [...document.querySelectorAll("#sim-results td.allowed")].reduce((n, td) => n + Number(td.textContent.split(" of ")[1]), 0);
  if (dots.length !== total) return "dots " + dots.length + ", decisions " + total;
  for (let i = 0; i < dots.length; i++)
    for (let j = i + 1; j < dots.length; j++)
      if (Math.hypot(dots[i][0] - dots[j][0], dots[i][1] - dots[j][1]) < dots[i][2] + dots[j][2]) return "dots " + i + " and " + j + " overlap";
  return "";
})()`

// checkNoDotHidden: every decision of the simulation is a dot that none hides.
func checkNoDotHidden(t *testing.T, tab context.Context) {
	t.Helper()
	problem, err := chromedp.Run(tab, chromedp.Evaluate[string](noDotHidden))
	if err != nil || problem != "" {
		t.Errorf("the simulation chart: %s %v", problem, err)
	}
}
