package expr

// Plus is "p + v", the operand of SET p = p + v.
func (p Path) Plus(v Operand) Operand { return Operand(string(p) + " + " + string(v)) }

// Equal is "p = v".
func (p Path) Equal(v Operand) Cond { return p.compare("=", v) }

// LessThan is "p < v".
func (p Path) LessThan(v Operand) Cond { return p.compare("<", v) }

// LessThanEqual is "p <= v".
func (p Path) LessThanEqual(v Operand) Cond { return p.compare("<=", v) }

// GreaterThan is "p > v".
func (p Path) GreaterThan(v Operand) Cond { return p.compare(">", v) }

func (p Path) compare(op string, v Operand) Cond {
	return Cond(string(p) + " " + op + " " + string(v))
}

// Exists is "attribute_exists (p)".
func Exists(p Path) Cond { return Cond("attribute_exists (" + string(p) + ")") }

// NotExists is "attribute_not_exists (p)".
func NotExists(p Path) Cond { return Cond("attribute_not_exists (" + string(p) + ")") }

// And is "(c) AND (d)", or d when c is empty (no condition yet).
func (c Cond) And(d Cond) Cond {
	if c == "" {
		return d
	}
	return Cond("(" + string(c) + ") AND (" + string(d) + ")")
}

// Or is "(c) OR (d)".
func (c Cond) Or(d Cond) Cond { return Cond("(" + string(c) + ") OR (" + string(d) + ")") }

// IfNotExists is "if_not_exists (p, v)": p's value, or v when p is absent.
func (p Path) IfNotExists(v Operand) Operand {
	return Operand("if_not_exists (" + string(p) + ", " + string(v) + ")")
}

// Plus is "o + v", as in SET p = if_not_exists (p, :0) + v.
func (o Operand) Plus(v Operand) Operand { return Operand(string(o) + " + " + string(v)) }
