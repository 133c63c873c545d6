package apply_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// fakePlans serves the plan routes of the admin API's contract, and nothing else:
// PUT /plans/{id} (201 on create, 409 if it exists without If-Match; 200 on update
// with If-Match, 412 on a stale one, 404 if there is none), GET /plans/{id}, GET
// /plans ({"plans": [...], "next_page_token": null}) and DELETE /plans/{id} under
// If-Match (204). Its ETags are not the version in quotes (see etag). It validates nothing: the client's normalization is under test.
type fakePlans struct {
	mu    sync.Mutex
	plans map[string]fakePlan
}

type fakePlan struct {
	ID      string          `json:"id"`
	Rules   json.RawMessage `json:"rules"`
	Routes  json.RawMessage `json:"routes"`
	Version int64           `json:"version"`
}

// etag is the plan's ETag: not its version in quotes, as the admin API writes a
// tenant's, so that a client that derives it from the version fails.
func (p fakePlan) etag() string { return `"plan-v` + strconv.FormatInt(p.Version, 10) + `"` }

func newFakePlans() *fakePlans { return &fakePlans{plans: map[string]fakePlan{}} }

func (f *fakePlans) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, one := strings.CutPrefix(r.URL.Path, "/plans/")
	p, exists := f.plans[id]
	ifMatch := r.Header.Get("If-Match")
	switch {
	case !one && r.Method == http.MethodGet:
		list := []fakePlan{}
		for _, id := range slices.Sorted(maps.Keys(f.plans)) {
			list = append(list, f.plans[id])
		}
		writeJSON(w, http.StatusOK, map[string]any{"plans": list, "next_page_token": nil})
	case !one:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case r.Method == http.MethodGet && exists:
		f.write(w, http.StatusOK, p)
	case r.Method == http.MethodPut && ifMatch == "" && exists:
		w.WriteHeader(http.StatusConflict)
	case r.Method == http.MethodPut && ifMatch == "":
		f.put(w, r, fakePlan{ID: id}, http.StatusCreated)
	case !exists:
		w.WriteHeader(http.StatusNotFound)
	case ifMatch != p.etag():
		w.WriteHeader(http.StatusPreconditionFailed)
	case r.Method == http.MethodPut:
		f.put(w, r, p, http.StatusOK)
	case r.Method == http.MethodDelete:
		delete(f.plans, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func (f *fakePlans) put(w http.ResponseWriter, r *http.Request, p fakePlan, status int) {
	var body struct{ Rules, Routes json.RawMessage }
	data, _ := io.ReadAll(r.Body)
	if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(data, &body) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	p.Rules, p.Routes, p.Version = body.Rules, body.Routes, p.Version+1
	f.plans[p.ID] = p
	f.write(w, status, p)
}

func (f *fakePlans) write(w http.ResponseWriter, status int, p fakePlan) {
	w.Header().Set("ETag", p.etag())
	writeJSON(w, status, p)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
