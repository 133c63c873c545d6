package tzdata

import (
	"compress/flate"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// The embedded copy, zoneinfo.chunks, is written by internal/gen from Go's
// zoneinfo.zip. Each distinct zone file is stored once (a link such as US/Eastern
// shares America/New_York's bytes), the files laid out in name order and cut into
// chunks of about equal size, each chunk a raw DEFLATE stream (RFC 1951) of its own.
// Integers are unsigned varints (encoding/binary):
//
//	file  = len(index) index chunk...
//	index = nchunks {deflated-size raw-size}... nzones {len(name) name chunk offset size}...
//
// The zones are sorted by name, and the chunks follow the index in its order. A zone
// is the bytes [offset, offset+size) of its chunk, decompressed.

// database is a copy in that format: the index is parsed on the first lookup, and a
// chunk decompressed on the first lookup of one of its zones, each once, then kept.
// Its methods are safe for concurrent use.
type database struct {
	index func() *index
}

// index is the parsed index.
type index struct {
	zones  []zone // by name
	chunks []chunk
}

// zone is where the file of name lies.
type zone struct {
	name                string
	chunk, offset, size int
}

// chunk is a DEFLATE stream of size bytes, decompressed once.
type chunk struct {
	deflated string
	size     int
	once     sync.Once
	raw      []byte
}

// open returns the database packed holds, not yet parsed.
func open(packed string) *database {
	return &database{index: sync.OnceValue(func() *index { return parse(packed) })}
}

// zone returns the file of name, shared: the caller must not modify it.
func (d *database) zone(name string) ([]byte, bool) {
	idx := d.index()
	i := sort.Search(len(idx.zones), func(i int) bool { return idx.zones[i].name >= name })
	if i == len(idx.zones) || idx.zones[i].name != name {
		return nil, false
	}
	z := idx.zones[i]
	return idx.chunks[z.chunk].data()[z.offset : z.offset+z.size : z.offset+z.size], true
}

// names returns the names of the zones, sorted.
func (d *database) names() []string {
	var names []string
	for _, z := range d.index().zones {
		names = append(names, z.name)
	}
	return names
}

// data returns the chunk decompressed.
func (c *chunk) data() []byte {
	c.once.Do(func() { c.raw = inflate(c.deflated, c.size) })
	if c.raw == nil {
		panic("tzdata: an embedded chunk failed to decompress") // on its first use, which said why
	}
	return c.raw
}

// inflate decompresses a DEFLATE stream of size bytes.
func inflate(deflated string, size int) []byte {
	r := flate.NewReader(strings.NewReader(deflated))
	raw := make([]byte, size)
	if _, err := io.ReadFull(r, raw); err != nil {
		corrupt("a chunk does not decompress: %v", err)
	}
	if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		corrupt("a chunk is longer than its %d bytes", size)
	}
	return raw
}

// corrupt panics: the embedded copy is go:embed'ed bytes, that TestEveryZoneOfGoIsEmbedded checks.
func corrupt(format string, args ...any) {
	panic("tzdata: the embedded database is corrupt: " + fmt.Sprintf(format, args...))
}
