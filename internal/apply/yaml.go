package apply

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlToJSON converts one YAML document to JSON: mappings with string keys become
// objects, sequences arrays, scalars JSON values. An empty document is an error, so
// that an empty file never reads as "nothing should exist".
func yamlToJSON(data []byte) ([]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the file is empty: it should hold plans, tenants or keys (write {} for none)")
		}
		return nil, fmt.Errorf("YAML: %w", err)
	}
	var next any
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, errors.New("YAML: the file holds more than one document")
	}
	if err := checkKeys(doc, ""); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// checkKeys checks that v, decoded from YAML, has a JSON form: string keys only.
func checkKeys(v any, path string) error {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if err := checkKeys(e, path+"."+k); err != nil {
				return err
			}
		}
	case map[any]any:
		for k := range v {
			if _, ok := k.(string); !ok {
				return fmt.Errorf("YAML: %s: the key %v is not a string: quote it (\"%[2]v\")", orRoot(path), k)
			}
		}
		return fmt.Errorf("YAML: %s: a mapping key is not a string", orRoot(path))
	case []any:
		for i, e := range v {
			if err := checkKeys(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "the document"
	}
	return path[1:]
}

// jsonToYAML rewrites JSON as block-style YAML, keeping the order of fields.
func jsonToYAML(data []byte) ([]byte, error) {
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return nil, fmt.Errorf("apply: encoding YAML: %w", err)
	}
	blockStyle(&node)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return nil, fmt.Errorf("apply: encoding YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("apply: encoding YAML: %w", err)
	}
	return b.Bytes(), nil
}

// blockStyle clears the flow and quoting styles that JSON's syntax gave each node; the
// encoder quotes a string where YAML 1.2 would read it as another type, and
// blockStyle the words that YAML 1.1 reads as booleans (on, no, ...), for other tools.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && yaml11Bools[strings.ToLower(n.Value)] {
		n.Style = yaml.DoubleQuotedStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

var yaml11Bools = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true}
