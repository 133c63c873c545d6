package middleware

import (
	"net/http"

	"github.com/edgelimit/edgelimit/internal/pending"
)

// settleWriter is the handler's http.ResponseWriter: it takes SettleCostHeader out of
// the response headers before they are sent.
type settleWriter struct {
	http.ResponseWriter
	p     *pending.Reservation
	wrote bool
}

// WriteHeader removes SettleCostHeader, then sends the headers.
func (w *settleWriter) WriteHeader(code int) {
	if !w.wrote {
		w.p.TakeHeader(w.Header())
		w.wrote = true
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write sends the headers first, as net/http does, without SettleCostHeader.
func (w *settleWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer (Flush, deadlines).
func (w *settleWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// done takes the header of a handler that wrote nothing, whose headers net/http sends
// once it returns.
func (w *settleWriter) done() {
	if !w.wrote {
		w.p.TakeHeader(w.Header())
	}
}
