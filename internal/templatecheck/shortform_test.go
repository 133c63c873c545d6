package templatecheck

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Parse reads a CloudFormation or SAM template in YAML (JSON is YAML too) into plain
// values: map[string]any, []any, string, int, float64, bool and nil. Short-form tags
// become the long form CloudFormation reads: `!Ref X` is {"Ref": "X"}, `!Condition C`
// is {"Condition": "C"}, `!GetAtt R.Attr` is {"Fn::GetAtt": ["R", "Attr"]}, and any
// other `!Name v` is {"Fn::Name": v}. A duplicate key, a document that is not a
// mapping, or a tag CloudFormation does not know is an error.
func Parse(data []byte) (map[string]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	v, err := convert(&doc)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("template: the document is not a mapping")
	}
	return m, nil
}

// ParseFile reads and parses the template at path.
func ParseFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// shortForms are the short-form tags CloudFormation accepts, by tag.
var shortForms = map[string]string{
	"!Ref": "Ref", "!Condition": "Condition",
	"!And": "Fn::And", "!Base64": "Fn::Base64", "!Cidr": "Fn::Cidr",
	"!Equals": "Fn::Equals", "!FindInMap": "Fn::FindInMap", "!GetAtt": "Fn::GetAtt",
	"!GetAZs": "Fn::GetAZs", "!If": "Fn::If", "!ImportValue": "Fn::ImportValue",
	"!Join": "Fn::Join", "!Length": "Fn::Length", "!Not": "Fn::Not", "!Or": "Fn::Or",
	"!Select": "Fn::Select", "!Split": "Fn::Split", "!Sub": "Fn::Sub",
	"!ToJsonString": "Fn::ToJsonString", "!Transform": "Fn::Transform",
}

// convert turns a YAML node into plain values, expanding short-form tags.
func convert(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, errors.New("empty document")
		}
		return convert(n.Content[0])
	case yaml.AliasNode:
		return convert(n.Alias)
	}
	if tag := n.Tag; strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!") {
		return convertTagged(n)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return convertMapping(n)
	case yaml.SequenceNode:
		return convertSequence(n)
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node kind %v", n.Line, n.Kind)
}

// convertTagged expands one short-form intrinsic function.
func convertTagged(n *yaml.Node) (any, error) {
	name, ok := shortForms[n.Tag]
	if !ok {
		return nil, fmt.Errorf("line %d: unknown tag %s", n.Line, n.Tag)
	}
	if n.Kind == yaml.ScalarNode {
		if name == "Fn::GetAtt" { // !GetAtt Resource.Attribute (the attribute may hold dots)
			res, attr, ok := strings.Cut(n.Value, ".")
			if !ok {
				return nil, fmt.Errorf("line %d: !GetAtt %q: want Resource.Attribute", n.Line, n.Value)
			}
			return map[string]any{name: []any{res, attr}}, nil
		}
		return map[string]any{name: n.Value}, nil
	}
	plain := *n
	plain.Tag = ""
	v, err := convert(&plain)
	if err != nil {
		return nil, err
	}
	return map[string]any{name: v}, nil
}

func convertMapping(n *yaml.Node) (map[string]any, error) {
	m := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a mapping key must be a scalar", k.Line)
		}
		if _, dup := m[k.Value]; dup {
			return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
		}
		v, err := convert(vn)
		if err != nil {
			return nil, err
		}
		m[k.Value] = v
	}
	return m, nil
}

func convertSequence(n *yaml.Node) ([]any, error) {
	s := make([]any, 0, len(n.Content))
	for _, c := range n.Content {
		v, err := convert(c)
		if err != nil {
			return nil, err
		}
		s = append(s, v)
	}
	return s, nil
}
