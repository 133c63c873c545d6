package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/limiter"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// MaxFileBytes bounds a tenants file.
const MaxFileBytes = 32 << 20

// File is a tenants file: static tenants and the hashes of their keys,
//
//	{"tenants": [{"id": "acme", "rules": [...]}, ...],
//	 "keys": [{"tenant_id": "acme", "key_id": "ab12cd34", "hash": "<sha-256 hex>"}]}
//
// Tenants take the tenant JSON of the admin API; keys hold hashes only (`edgelimit keys
// new` prints an entry, `edgelimit keys hash` the hash of an existing key).
type File struct {
	Tenants []tenant.Tenant
	Keys    []FileKey
}

// FileKey is a key entry of a tenants file.
type FileKey struct {
	TenantID string `json:"tenant_id"`
	KeyID    string `json:"key_id"`
	Hash     string `json:"hash"`
}

// Record returns the key record the entry stands for, created at instant 0.
func (k FileKey) Record() apikey.Record {
	return apikey.Record{KeyID: k.KeyID, TenantID: k.TenantID, Hash: k.Hash, Prefix: apikey.Prefix(k.KeyID)}
}

// FileError reports a problem with one entry of a tenants file.
type FileError struct {
	File  string // the file's path; "" when decoded from memory
	Entry string // "tenants[2]" or "keys[0]"; "" for the file as a whole
	Name  string // `tenant "acme"` or `key "ab12cd34" of tenant "acme"`, when known
	Err   error  // a *limiter.FieldError naming the field, or another error
}

// Error formats the error as `FILE: ENTRY (NAME): FIELD = VALUE: REASON`.
func (e *FileError) Error() string {
	var parts []string
	if e.File != "" {
		parts = append(parts, e.File)
	}
	if e.Entry != "" {
		entry := e.Entry
		if e.Name != "" {
			entry += " (" + e.Name + ")"
		}
		parts = append(parts, entry)
	}
	return strings.Join(append(parts, e.Err.Error()), ": ")
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// ReadFile reads and validates the tenants file at path. Errors are *FileError naming
// the file, the entry and the field.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	file, err := DecodeFile(data)
	if fe, ok := errors.AsType[*FileError](err); ok {
		fe.File = path
	}
	return file, err
}

// DecodeFile decodes and validates a tenants file: tenants as tenant.Decode reads
// them, with unique ids; keys with valid key ids and hashes, for tenants of the file,
// unique by hash and by key id within a tenant, at most MaxKeysPerTenant per tenant.
func DecodeFile(data []byte) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, &FileError{Err: fmt.Errorf("larger than %d bytes", MaxFileBytes)}
	}
	var raw struct {
		Tenants []json.RawMessage `json:"tenants"`
		Keys    []json.RawMessage `json:"keys"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, &FileError{Err: fmt.Errorf(`want {"tenants": [...], "keys": [...]}: %w`, err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &FileError{Err: errors.New("data after the JSON object")}
	}
	f := &File{}
	if err := f.decodeTenants(raw.Tenants); err != nil {
		return nil, err
	}
	if err := f.decodeKeys(raw.Keys); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) decodeTenants(raws []json.RawMessage) error {
	seen := map[string]int{}
	for i, msg := range raws {
		entry := "tenants[" + strconv.Itoa(i) + "]"
		t, err := tenant.Decode(msg)
		if err != nil {
			return &FileError{Entry: entry, Name: peekName(msg), Err: err}
		}
		if j, dup := seen[t.ID]; dup {
			return &FileError{Entry: entry, Name: "tenant " + strconv.Quote(t.ID),
				Err: &limiter.FieldError{Field: "id", Value: strconv.Quote(t.ID), Reason: fmt.Sprintf("repeats tenants[%d]", j)}}
		}
		seen[t.ID] = i
		f.Tenants = append(f.Tenants, t)
	}
	return nil
}

// peekName names a tenant entry by its id, when it has a readable one.
func peekName(msg []byte) string {
	var head struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(msg, &head) != nil || head.ID == "" || len(head.ID) > 2*tenant.MaxIDLen {
		return ""
	}
	return "tenant " + strconv.Quote(head.ID)
}

func (f *File) decodeKeys(raws []json.RawMessage) error {
	tenants := map[string]bool{}
	for _, t := range f.Tenants {
		tenants[t.ID] = true
	}
	hashes := map[string]int{}
	ids := map[[2]string]int{}
	perTenant := map[string]int{}
	for i, msg := range raws {
		entry := "keys[" + strconv.Itoa(i) + "]"
		k, err := decodeFileKey(msg)
		if err != nil {
			return &FileError{Entry: entry, Err: err}
		}
		name := fmt.Sprintf("key %q of tenant %q", k.KeyID, k.TenantID)
		if err := k.check(tenants, hashes, ids, perTenant); err != nil {
			return &FileError{Entry: entry, Name: name, Err: err}
		}
		hashes[k.Hash], ids[[2]string{k.TenantID, k.KeyID}] = i, i
		perTenant[k.TenantID]++
		f.Keys = append(f.Keys, k)
	}
	return nil
}

func decodeFileKey(msg []byte) (FileKey, error) {
	var k FileKey
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&k); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return k, &limiter.FieldError{Field: strings.Trim(name, `"`),
				Reason: "unknown field: a key entry has tenant_id, key_id and hash (the SHA-256 of the key, never the key)"}
		}
		return k, fmt.Errorf(`want {"tenant_id": ..., "key_id": ..., "hash": ...}: %w`, err)
	}
	return k, nil
}

// check validates a key entry against the tenants and the entries before it.
func (k FileKey) check(tenants map[string]bool, hashes map[string]int, ids map[[2]string]int, perTenant map[string]int) error {
	switch {
	case !tenants[k.TenantID]:
		return &limiter.FieldError{Field: "tenant_id", Value: strconv.Quote(k.TenantID), Reason: "names no tenant of the file"}
	case !apikey.ValidKeyID(k.KeyID):
		return &limiter.FieldError{Field: "key_id", Value: strconv.Quote(k.KeyID), Reason: "must be 8 lowercase letters or digits (characters 5 to 12 of the key)"}
	case !apikey.ValidHash(k.Hash):
		// The value is never shown: it may be a raw key pasted by mistake.
		return &limiter.FieldError{Field: "hash", Reason: "must be 64 lowercase hex digits, the SHA-256 of the key (`edgelimit keys hash`)"}
	}
	if j, dup := hashes[k.Hash]; dup {
		return &limiter.FieldError{Field: "hash", Reason: fmt.Sprintf("repeats keys[%d]", j)}
	}
	if j, dup := ids[[2]string{k.TenantID, k.KeyID}]; dup {
		return &limiter.FieldError{Field: "key_id", Value: strconv.Quote(k.KeyID), Reason: fmt.Sprintf("repeats keys[%d] of the same tenant", j)}
	}
	if perTenant[k.TenantID] >= MaxKeysPerTenant {
		return &limiter.FieldError{Field: "tenant_id", Value: strconv.Quote(k.TenantID), Reason: fmt.Sprintf("has more than %d keys", MaxKeysPerTenant)}
	}
	return nil
}

// CheckRules runs check on every rule of every tenant of the file (see
// tenant.Tenant.CheckRules): how a counter store that cannot honour every valid rule
// (store.RuleChecker) refuses a file at load rather than on every decision. The
// error is a *FileError naming the entry and the field ("rules[0].limit").
func (f *File) CheckRules(check func(limiter.Rule) error) error {
	for i, t := range f.Tenants {
		if err := t.CheckRules(check); err != nil {
			return &FileError{Entry: "tenants[" + strconv.Itoa(i) + "]", Name: "tenant " + strconv.Quote(t.ID), Err: err}
		}
	}
	return nil
}

// Load creates the file's tenants (at version 1) and key records in s.
func (f *File) Load(ctx context.Context, s Tenants) error {
	return f.each(func(t tenant.Tenant) error { _, err := s.Create(ctx, t); return err },
		func(r apikey.Record) error { return s.PutKey(ctx, r) })
}

// each calls create with each tenant, then put with each key record.
func (f *File) each(create func(tenant.Tenant) error, put func(apikey.Record) error) error {
	for i, t := range f.Tenants {
		if err := create(t); err != nil {
			return &FileError{Entry: "tenants[" + strconv.Itoa(i) + "]", Name: "tenant " + strconv.Quote(t.ID), Err: err}
		}
	}
	for i, k := range f.Keys {
		if err := put(k.Record()); err != nil {
			return &FileError{Entry: "keys[" + strconv.Itoa(i) + "]", Name: fmt.Sprintf("key %q of tenant %q", k.KeyID, k.TenantID), Err: err}
		}
	}
	return nil
}

// LoadFileWith reads the tenants file at path and writes its tenants with create and
// its key records with put; when check is not nil, every rule of the file must pass it
// (File.CheckRules) first. It is what a store's own loader (memory.LoadFile) calls with
// its methods, so that a program loading a file into that store makes no Create or
// PutKey call through an interface. The linker keeps a method called through an interface on every type
// converted to one: the Lambda functions, which load a tenants file into the memory
// store, would otherwise carry the DynamoDB and Upstash stores' Create and PutKey, and
// the SDK operations they send.
func LoadFileWith(path string, check func(limiter.Rule) error, create func(tenant.Tenant) error, put func(apikey.Record) error) error {
	f, err := ReadFile(path)
	if err == nil && check != nil {
		err = f.CheckRules(check)
	}
	if err == nil {
		err = f.each(create, put)
	}
	if fe, ok := errors.AsType[*FileError](err); ok {
		fe.File = path
	}
	return err
}
