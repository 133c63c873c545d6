package expr

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Builder collects one write's placeholders and update actions. The zero value is an
// empty write; a Builder is for one goroutine and one write.
type Builder struct {
	names            map[string]string // placeholder -> attribute name
	byName           map[string]string // attribute name -> placeholder
	values           map[string]types.AttributeValue
	set, add, remove []string
	err              error
}

// Path is an attribute path of an expression, its names as placeholders ("#0.#1").
type Path string

// Operand is a value placeholder, a path, or path + value, as an expression holds it.
type Operand string

// Cond is a condition expression.
type Cond string

// Path returns the path of name, whose dots separate a map's name from its entry's. An
// empty name, or one with an empty part, is an error that Write returns.
func (b *Builder) Path(name string) Path {
	parts := strings.Split(name, ".")
	for i, part := range parts {
		if part == "" {
			b.err = errors.Join(b.err, fmt.Errorf("expr: the attribute path %q has an empty name", name))
		}
		parts[i] = b.placeholder(part)
	}
	return Path(strings.Join(parts, "."))
}

func (b *Builder) placeholder(name string) string {
	if p, ok := b.byName[name]; ok {
		return p
	}
	if b.names == nil {
		b.names, b.byName = map[string]string{}, map[string]string{}
	}
	p := "#" + strconv.Itoa(len(b.names))
	b.names[p], b.byName[name] = name, p
	return p
}

// value returns the placeholder of v.
func (b *Builder) value(v types.AttributeValue) Operand {
	if b.values == nil {
		b.values = map[string]types.AttributeValue{}
	}
	p := ":" + strconv.Itoa(len(b.values))
	b.values[p] = v
	return Operand(p)
}

// Int returns the placeholder of the number v.
func (b *Builder) Int(v int64) Operand {
	return b.value(&types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)})
}

// Number returns the placeholder of the integer v, which may be beyond int64 (DynamoDB
// numbers have 38 digits).
func (b *Builder) Number(v *big.Int) Operand {
	return b.value(&types.AttributeValueMemberN{Value: v.String()})
}

// IntMap returns the placeholder of a map of numbers.
func (b *Builder) IntMap(m map[string]int64) Operand {
	av := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		av[k] = &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
	}
	return b.value(&types.AttributeValueMemberM{Value: av})
}
