package devserver

import (
	"net"
	"net/http"
	"strings"

	"github.com/edgelimit/edgelimit/internal/admin"
)

// Guard returns next (the dev server, with the console around it) behind a check of
// the admin paths (/admin and under /admin/, the console's endpoints among them), which
// answer without authentication, against the web pages the developer visits. listen
// is the --listen address ("127.0.0.1:3000").
//
// Why: a page cannot read another origin's answers, but it can point its own host name
// at 127.0.0.1 (DNS rebinding) and then call the admin API as its own origin; the
// request then names the page's host in Host. So a Host that is not localhost,
// 127.0.0.1, [::1] or listen's host (with any port or none) is refused. A page can also
// send a write to http://127.0.0.1:3000 directly: a request other than GET, HEAD or
// OPTIONS that the browser marks as cross-origin (Sec-Fetch-Site, or an Origin that is
// not the server's own) is refused too, by http.CrossOriginProtection. Requests with
// no Origin (curl, the CLI) and the console's own pass. A refusal is a 403 "forbidden"
// problem naming the header, and reaches nothing behind. The other paths are the
// protected API's: they keep API Gateway's behaviour, whatever their Host.
func Guard(listen string, next http.Handler) http.Handler {
	own, _, _ := net.SplitHostPort(listen)
	origins := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case !isAdminPath(r.URL.Path):
		case !loopbackHost(r.Host, own):
			admin.WriteProblem(w, r, "forbidden", "Host", "Host "+r.Host+" is not a loopback name of edgelimit dev "+
				"(a page's host name pointed at 127.0.0.1?): use http://127.0.0.1:PORT or http://localhost:PORT")
			return
		case origins.Check(r) != nil:
			admin.WriteProblem(w, r, "forbidden", "Origin", "a browser's write from another origin: the admin API of "+
				"edgelimit dev answers its own console and clients that send no Origin")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether host (a Host header, with or without a port) names
// localhost, 127.0.0.1, [::1] or own.
func loopbackHost(host, own string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.EqualFold(host, "localhost") || host == "127.0.0.1" || host == "::1" ||
		own != "" && strings.EqualFold(host, own)
}
