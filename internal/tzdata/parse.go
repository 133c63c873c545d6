package tzdata

// parse reads the index of packed and locates its chunks; the zones' names are
// substrings of packed.
func parse(packed string) *index {
	r := &varints{s: packed}
	indexLen := r.int()
	if indexLen > len(r.s) {
		corrupt("the index is cut short")
	}
	r, chunks := &varints{s: r.s[:indexLen]}, r.s[indexLen:]
	idx := &index{chunks: make([]chunk, r.int())}
	for i := range idx.chunks {
		deflated, size := r.int(), r.int()
		if deflated > len(chunks) || size == 0 {
			corrupt("chunk %d is cut short or empty", i)
		}
		idx.chunks[i].deflated, idx.chunks[i].size, chunks = chunks[:deflated], size, chunks[deflated:]
	}
	idx.zones = make([]zone, r.int())
	for i := range idx.zones {
		z := &idx.zones[i]
		z.name = r.string()
		z.chunk, z.offset, z.size = r.int(), r.int(), r.int()
		if i > 0 && z.name <= idx.zones[i-1].name {
			corrupt("the zones are not sorted at %q", z.name)
		}
		if z.chunk >= len(idx.chunks) || z.offset+z.size > idx.chunks[z.chunk].size {
			corrupt("%s lies outside the chunks", z.name)
		}
	}
	if len(r.s) != 0 || len(chunks) != 0 {
		corrupt("%d bytes of index and %d of chunks are left over", len(r.s), len(chunks))
	}
	return idx
}

// varints reads unsigned varints (encoding/binary's) and strings from s.
type varints struct{ s string }

// int reads a varint of at most 31 bits.
func (r *varints) int() int {
	v := 0
	for shift := 0; shift < 31; shift += 7 {
		if len(r.s) == 0 {
			break
		}
		b := r.s[0]
		r.s = r.s[1:]
		v |= int(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	corrupt("a number is cut short or too large")
	return 0
}

// string reads a length and that many bytes.
func (r *varints) string() string {
	n := r.int()
	if n > len(r.s) {
		corrupt("a name is cut short")
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}
