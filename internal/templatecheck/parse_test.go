package templatecheck

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseShortForms(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want any
	}{
		{"Ref", "v: !Ref Backend", map[string]any{"Ref": "Backend"}},
		{"Condition", "v: !Condition UseDynamoDB", map[string]any{"Condition": "UseDynamoDB"}},
		{"GetAtt scalar", "v: !GetAtt Table.Arn", map[string]any{"Fn::GetAtt": []any{"Table", "Arn"}}},
		{"GetAtt dotted attribute", "v: !GetAtt Db.Endpoint.Address",
			map[string]any{"Fn::GetAtt": []any{"Db", "Endpoint.Address"}}},
		{"GetAtt sequence", "v: !GetAtt [Table, Arn]", map[string]any{"Fn::GetAtt": []any{"Table", "Arn"}}},
		{"Sub string", "v: !Sub https://${Api}.example/", map[string]any{"Fn::Sub": "https://${Api}.example/"}},
		{"Sub with variables", "v: !Sub ['${A}-x', {A: !Ref B}]",
			map[string]any{"Fn::Sub": []any{"${A}-x", map[string]any{"A": map[string]any{"Ref": "B"}}}}},
		{"If nested", "v: !If [C, !Ref X, !Ref AWS::NoValue]",
			map[string]any{"Fn::If": []any{"C", map[string]any{"Ref": "X"}, map[string]any{"Ref": "AWS::NoValue"}}}},
		{"Equals and Not", "v: !Not [!Equals [!Ref P, '']]",
			map[string]any{"Fn::Not": []any{map[string]any{"Fn::Equals": []any{map[string]any{"Ref": "P"}, ""}}}}},
		{"Select Split", "v: !Select [0, !Split [',', 'a,b']]",
			map[string]any{"Fn::Select": []any{0, map[string]any{"Fn::Split": []any{",", "a,b"}}}}},
		{"GetAZs empty", "v: !GetAZs ''", map[string]any{"Fn::GetAZs": ""}},
		{"Join", "v: !Join ['', [a, !Ref B]]",
			map[string]any{"Fn::Join": []any{"", []any{"a", map[string]any{"Ref": "B"}}}}},
		{"long form untouched", "v: {Fn::GetAtt: [T, Arn]}", map[string]any{"Fn::GetAtt": []any{"T", "Arn"}}},
		{"plain scalars", "v: [1, true, x, '0', null]", []any{1, true, "x", "0", nil}},
		{"alias", "a: &x {k: !Ref R}\nv: *x", map[string]any{"k": map[string]any{"Ref": "R"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got["v"], tt.want) {
				t.Errorf("Parse(%q)[v] = %#v, want %#v", tt.yaml, got["v"], tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, wantErr string
	}{
		{"unknown tag", "v: !Reff X", "unknown tag !Reff"},
		{"GetAtt without attribute", "v: !GetAtt Table", "want Resource.Attribute"},
		{"duplicate key", "a: 1\na: 2", `duplicate key "a"`},
		{"not a mapping", "- a", "not a mapping"},
		{"empty", "", "EOF"},
		{"bad YAML", "a: [1", "did not find expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) error = %v, want it to contain %q", tt.yaml, err, tt.wantErr)
			}
		})
	}
}
