package expr

import (
	"math/big"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// A write with every form: the expressions, one placeholder per distinct name, a
// value per operand, and a dotted path as a map's entry.
func TestWrite(t *testing.T) {
	var b Builder
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	c, ws, entry := b.Path("c"), b.Path("ws"), b.Path("g.17")
	cond := ws.Equal(b.Int(5)).And(c.LessThanEqual(b.Int(9))).Or(NotExists(ws)).And(Exists(entry)).And(c.GreaterThan(b.Number(huge))).And(ws.LessThan(b.Int(-1)))
	b.Set(ws, b.Int(7))
	b.Set(entry, entry.Plus(b.Int(2)))
	b.Add(c, b.Int(1))
	b.Set(b.Path("m"), b.IntMap(map[string]int64{"17": 3}))
	b.Remove(b.Path("g.11"))
	w, err := b.Write(cond)
	if err != nil {
		t.Fatal(err)
	}
	wantCond := "(((((#1 = :0) AND (#0 <= :1)) OR (attribute_not_exists (#1))) AND (attribute_exists (#2.#3))) AND (#0 > :2)) AND (#1 < :3)"
	if w.Condition != wantCond {
		t.Errorf("condition = %q, want %q", w.Condition, wantCond)
	}
	if want := "SET #1 = :4, #2.#3 = #2.#3 + :5, #4 = :7 ADD #0 :6 REMOVE #2.#5"; w.Update != want {
		t.Errorf("update = %q, want %q", w.Update, want)
	}
	wantNames := map[string]string{"#0": "c", "#1": "ws", "#2": "g", "#3": "17", "#4": "m", "#5": "11"}
	if !reflect.DeepEqual(w.Names, wantNames) {
		t.Errorf("names = %v, want %v", w.Names, wantNames)
	}
	wantValues := map[string]types.AttributeValue{":0": n("5"), ":1": n("9"), ":2": n("123456789012345678901234567890"),
		":3": n("-1"), ":4": n("7"), ":5": n("2"), ":6": n("1"),
		":7": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"17": n("3")}}}
	if !reflect.DeepEqual(w.Values, wantValues) {
		t.Errorf("values = %v, want %v", w.Values, wantValues)
	}
}

// Placeholders that neither expression uses are left out (DynamoDB refuses them), and
// #1 is not taken for used by #10.
func TestWriteLeavesOutUnused(t *testing.T) {
	var b Builder
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"} {
		b.Path(name) // #0 .. #10
	}
	_ = b.Path("x").Equal(b.Int(1)) // #11 = :0, a condition then dropped
	b.Set(b.Path("k"), b.Int(2))    // #10 = :1
	w, err := b.Write("")
	if err != nil {
		t.Fatal(err)
	}
	if w.Condition != "" || w.Update != "SET #10 = :1" {
		t.Errorf("condition %q, update %q; want none and SET #10 = :1", w.Condition, w.Update)
	}
	if !reflect.DeepEqual(w.Names, map[string]string{"#10": "k"}) || !reflect.DeepEqual(w.Values, map[string]types.AttributeValue{":1": n("2")}) {
		t.Errorf("names %v, values %v; want #10 and :1 only", w.Names, w.Values)
	}
}

// A condition And-ed onto none is itself.
func TestAndOntoNone(t *testing.T) {
	var b Builder
	if c := Cond("").And(Exists(b.Path("a"))); c != "attribute_exists (#0)" {
		t.Errorf("And onto none = %q, want attribute_exists (#0)", c)
	}
}

// An empty write has no expressions and no placeholders.
func TestWriteEmpty(t *testing.T) {
	var b Builder
	w, err := b.Write("")
	if err != nil || w.Condition != "" || w.Update != "" || w.Names != nil || w.Values != nil {
		t.Errorf("Write() = %+v, %v; want the zero Write", w, err)
	}
}

// A path with an empty name fails the write.
func TestWriteErrors(t *testing.T) {
	for name, build := range map[string]func(b *Builder){
		"empty path":   func(b *Builder) { b.Set(b.Path(""), b.Int(1)) },
		"empty part":   func(b *Builder) { b.Set(b.Path("g..1"), b.Int(1)) },
		"trailing dot": func(b *Builder) { b.Set(b.Path("g."), b.Int(1)) },
	} {
		t.Run(name, func(t *testing.T) {
			var b Builder
			build(&b)
			if w, err := b.Write(""); err == nil {
				t.Errorf("Write() = %+v, want an error", w)
			}
		})
	}
}

// A slot added to a map entry that may be absent: SET p = if_not_exists (p, v) + w.
func TestIfNotExistsPlus(t *testing.T) {
	var b Builder
	slot := b.Path("g.17")
	b.Set(slot, slot.IfNotExists(b.Int(0)).Plus(b.Int(1)))
	w, err := b.Write("")
	if want := "SET #0.#1 = if_not_exists (#0.#1, :0) + :1"; err != nil || w.Update != want {
		t.Errorf("update = %q (%v), want %q", w.Update, err, want)
	}
}
