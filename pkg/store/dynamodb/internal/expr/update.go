package expr

import (
	"maps"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Set adds the action SET p = v.
func (b *Builder) Set(p Path, v Operand) { b.set = append(b.set, string(p)+" = "+string(v)) }

// Add adds the action ADD p v: v added to the number p (0 when absent).
func (b *Builder) Add(p Path, v Operand) { b.add = append(b.add, string(p)+" "+string(v)) }

// Remove adds the action REMOVE p.
func (b *Builder) Remove(p Path) { b.remove = append(b.remove, string(p)) }

// Update returns the update expression of the actions so far, "SET a = :0, b = :1 ADD
// c :2 REMOVE d", or "" when there are none.
func (b *Builder) Update() string {
	var s strings.Builder
	for _, clause := range []struct {
		verb    string
		actions []string
	}{{"SET", b.set}, {"ADD", b.add}, {"REMOVE", b.remove}} {
		if len(clause.actions) == 0 {
			continue
		}
		if s.Len() > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(clause.verb + " " + strings.Join(clause.actions, ", "))
	}
	return s.String()
}

// Write is a write's condition and update expressions and the placeholders they use.
type Write struct {
	Condition string // "" for none
	Update    string // "" for none
	Names     map[string]string
	Values    map[string]types.AttributeValue
}

// Write returns the condition cond ("" for none) and the update of the actions so far,
// with the placeholders either of them uses (the Builder keeps only those): DynamoDB refuses a request naming one
// that neither uses, as when a condition built here is replaced by another. Its error
// joins those of the paths that could not be written.
func (b *Builder) Write(cond Cond) (Write, error) {
	if b.err != nil {
		return Write{}, b.err
	}
	w := Write{Condition: string(cond), Update: b.Update()}
	used := placeholders(w.Condition, w.Update)
	w.Names, w.Values = usedOnly(b.names, used), usedOnly(b.values, used)
	return w, nil
}

// usedOnly returns the entries of m whose placeholder is used, nil when none.
func usedOnly[V any](m map[string]V, used map[string]bool) map[string]V {
	maps.DeleteFunc(m, func(p string, _ V) bool { return !used[p] })
	if len(m) == 0 {
		return nil
	}
	return m
}

// placeholders returns the placeholders (#n and :n) that the expressions hold.
func placeholders(exprs ...string) map[string]bool {
	used := map[string]bool{}
	for _, e := range exprs {
		for i := 0; i < len(e); i++ {
			if e[i] != '#' && e[i] != ':' {
				continue
			}
			j := i + 1
			for j < len(e) && e[j] >= '0' && e[j] <= '9' {
				j++
			}
			used[e[i:j]] = true
			i = j - 1
		}
	}
	return used
}
