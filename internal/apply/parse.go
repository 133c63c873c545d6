package apply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// MaxFileBytes bounds the file Parse reads.
const MaxFileBytes = 16 << 20

// Parse reads a file of plans, tenants and keys (see the package doc): JSON when name
// ends in .json, YAML when it ends in .yaml or .yml, otherwise JSON when the text starts
// with '{' and YAML when not. Every object is validated and normalized, and each
// tenant merged with its plan when the file holds the plan; the first problem is an
// error naming the object and its field.
func Parse(name string, data []byte) (*State, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("the file is %d bytes; the most is %d", len(data), MaxFileBytes)
	}
	if isYAML(name, data) {
		var err error
		if data, err = yamlToJSON(data); err != nil {
			return nil, err
		}
	}
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%v (a file holds plans, tenants and keys)", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	s := newState()
	if err := parseObjects(f.Plans, "plans", s.Plans, forWrite(normalizePlan, tenant.DecodePlan)); err != nil {
		return nil, err
	}
	if err := parseObjects(f.Tenants, "tenants", s.Tenants, forWrite(normalizeTenant, tenant.Decode)); err != nil {
		return nil, err
	}
	if err := checkMerges(s.Tenants, s.Plans, true); err != nil {
		return nil, err
	}
	for _, id := range slices.Sorted(maps.Keys(f.Keys)) {
		k, err := parseKey(id, f.Keys[id])
		if err != nil {
			return nil, err
		}
		s.Keys[id] = k
	}
	return s, nil
}

func isYAML(name string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return false
	case ".yaml", ".yml":
		return true
	}
	return !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
}

// parseObjects normalizes each of raws (the list named list) into out, by id.
func parseObjects(raws []json.RawMessage, list string, out map[string]Object, normalize func(Object) (Object, error)) error {
	for i, raw := range raws {
		var obj Object
		if err := decodeObject(raw, &obj); err != nil || obj == nil {
			return fmt.Errorf("%s[%d]: must be an object", list, i)
		}
		id, _ := obj["id"].(string)
		where := list + "[" + strconv.Itoa(i) + "]"
		if id != "" {
			where += " (" + id + ")"
		}
		norm, err := normalize(obj)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if _, dup := out[id]; dup {
			return fmt.Errorf("%s: id %q is listed twice", where, id)
		}
		out[id] = norm
	}
	return nil
}

// parseKey reads the entry of key id: its tenant, and its status (default active).
func parseKey(id string, raw json.RawMessage) (Key, error) {
	where := "keys." + id
	if !apikey.ValidKeyID(id) {
		return Key{}, fmt.Errorf("%s: not a key id (%d lowercase letters or digits, as the admin API lists them)", where, apikey.KeyIDLen)
	}
	var obj Object
	if err := decodeObject(raw, &obj); err != nil || obj == nil {
		return Key{}, fmt.Errorf("%s: must be an object with tenant and status", where)
	}
	var k Key
	for _, field := range slices.Sorted(maps.Keys(obj)) {
		s, ok := obj[field].(string)
		switch {
		case field != "tenant" && field != "status":
			return Key{}, fmt.Errorf("%s.%s: unknown field: a key entry holds its tenant and status only (apply leaves a key's own rules as the server holds them, and never sees its secret)", where, field)
		case !ok:
			return Key{}, fmt.Errorf("%s.%s: must be a string", where, field)
		case field == "tenant":
			k.Tenant = s
		default:
			k.Status = s
		}
	}
	if !tenant.ValidID(k.Tenant) {
		return Key{}, fmt.Errorf("%s.tenant: %q is not a tenant id", where, k.Tenant)
	}
	switch k.Status {
	case "":
		k.Status = KeyActive
	case KeyActive, KeyRevoked:
	default:
		return Key{}, fmt.Errorf("%s.status: %q: must be %q or %q", where, k.Status, KeyActive, KeyRevoked)
	}
	return k, nil
}

// decodeObject decodes JSON into v, numbers as json.Number.
func decodeObject(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
