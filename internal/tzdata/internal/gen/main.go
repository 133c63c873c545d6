// Command gen writes internal/tzdata's embedded copy of Go's time zone database: the
// zone files of a zoneinfo.zip (Go's lib/time/zoneinfo.zip), each distinct content once,
// in chunks that are DEFLATEd one by one, after an index of the zones, in the format
// internal/tzdata's format.go describes. The output depends on the input alone.
//
//	go run ./internal/gen [-chunks 16] -o zoneinfo.chunks $GOROOT/lib/time/zoneinfo.zip
//
// `go generate ./internal/tzdata` runs it on the Go toolchain's database.
package main

import (
	"archive/zip"
	"bytes"
	"cmp"
	"compress/flate"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
)

func main() {
	out := flag.String("o", "zoneinfo.chunks", "the file to write")
	chunks := flag.Int("chunks", 16, "how many chunks to split the zone files into")
	flag.Parse()
	if flag.NArg() != 1 || *chunks < 1 {
		log.Fatal("usage: gen [-chunks n] -o file zoneinfo.zip")
	}
	zones, err := readZip(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	packed, err := pack(zones, *chunks)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, packed, 0o644); err != nil {
		log.Fatal(err)
	}
}

// zoneFile is one entry of the zip.
type zoneFile struct {
	name string
	data []byte
}

// readZip returns the files of the zip at path, sorted by name.
func readZip(path string) ([]zoneFile, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	var zones []zoneFile
	for _, f := range z.File {
		if f.FileInfo().IsDir() {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		zones = append(zones, zoneFile{f.Name, data})
	}
	slices.SortFunc(zones, func(a, b zoneFile) int { return cmp.Compare(a.name, b.name) })
	for i := 1; i < len(zones); i++ {
		if zones[i].name == zones[i-1].name {
			return nil, fmt.Errorf("%s is twice in %s", zones[i].name, path)
		}
	}
	return zones, nil
}

// place is where a zone's file lies: its chunk, and its offset and size in the chunk.
type place struct{ chunk, offset, size int }

// pack lays the distinct contents out in name order of their first zone, cuts them
// into n chunks of about equal raw size (a content is never cut), and writes the
// index and the DEFLATEd chunks.
func pack(zones []zoneFile, n int) ([]byte, error) {
	total := 0
	seen := map[string]bool{}
	for _, z := range zones {
		if !seen[string(z.data)] {
			seen[string(z.data)] = true
			total += len(z.data)
		}
	}
	raw := make([][]byte, 1, n)
	where := map[string]place{}
	places := make([]place, len(zones))
	laid := 0
	for i, z := range zones {
		p, ok := where[string(z.data)]
		if !ok {
			if len(raw[len(raw)-1]) > 0 && laid >= total*len(raw)/n {
				raw = append(raw, nil)
			}
			last := len(raw) - 1
			p = place{last, len(raw[last]), len(z.data)}
			raw[last] = append(raw[last], z.data...)
			where[string(z.data)] = p
			laid += len(z.data)
		}
		places[i] = p
	}
	return write(zones, places, raw)
}

// write is the file: the index's size, the index, the chunks.
func write(zones []zoneFile, places []place, raw [][]byte) ([]byte, error) {
	var index, chunks []byte
	index = binary.AppendUvarint(index, uint64(len(raw)))
	for _, r := range raw {
		d, err := deflate(r)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, d...)
		index = binary.AppendUvarint(index, uint64(len(d)))
		index = binary.AppendUvarint(index, uint64(len(r)))
	}
	index = binary.AppendUvarint(index, uint64(len(zones)))
	for i, z := range zones {
		index = binary.AppendUvarint(index, uint64(len(z.name)))
		index = append(index, z.name...)
		for _, v := range []int{places[i].chunk, places[i].offset, places[i].size} {
			index = binary.AppendUvarint(index, uint64(v))
		}
	}
	out := binary.AppendUvarint(nil, uint64(len(index)))
	return append(append(out, index...), chunks...), nil
}

// deflate is raw DEFLATE at the best compression.
func deflate(raw []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
