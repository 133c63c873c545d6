package memory

import (
	"slices"

	"github.com/edgelimit/edgelimit/pkg/store"
)

// page returns the values, made by get, of the ids of the page that limit and
// pageToken ask for among ids (sorted), and the next page's token, as
// store.Tenants.List defines them.
func page[T any](ids []string, limit int, pageToken string, get func(id string) T) ([]T, string, error) {
	after, err := store.ParsePageToken(pageToken)
	if err != nil {
		return nil, "", err
	}
	limit = store.ListLimit(limit)
	i := 0
	if after != "" {
		i, _ = slices.BinarySearch(ids, after+"\x00") // the first id after it
	}
	end := min(i+limit, len(ids))
	next := ""
	if end < len(ids) {
		next = store.PageToken(ids[end-1])
	}
	out := make([]T, 0, end-i)
	for _, id := range ids[i:end] {
		out = append(out, get(id))
	}
	return out, next, nil
}
