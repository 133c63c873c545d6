package console

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var static embed.FS

// Paths of the console.
const (
	PagePath     = "/console/"           // the page and its files
	TrafficPath  = "/admin/dev/traffic"  // GET: recent decisions per second
	SimulatePath = "/admin/dev/simulate" // POST: a trace through a rule set
)

// contentSecurity lets the page load its own files only: nothing from elsewhere.
const contentSecurity = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'"

// Files returns the page's files (index.html, app.js, style.css), as Mount serves them.
func Files() fs.FS {
	files, _ := fs.Sub(static, "static") // the folder is embedded: Sub cannot fail
	return files
}

// Mount returns a handler serving the console's page and endpoints, and everything
// else with next (the local gateway). traffic counts the decisions the page charts.
func Mount(next http.Handler, traffic *Traffic) http.Handler {
	page := http.StripPrefix(PagePath, http.FileServerFS(Files()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == strings.TrimSuffix(PagePath, "/"):
			http.Redirect(w, r, PagePath, http.StatusMovedPermanently)
		case strings.HasPrefix(p, PagePath):
			w.Header().Set("Content-Security-Policy", contentSecurity)
			w.Header().Set("Cache-Control", "no-store")
			page.ServeHTTP(w, r)
		case p == TrafficPath:
			traffic.ServeHTTP(w, r)
		case p == SimulatePath:
			serveSimulate(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}
