package limiter

// SameRules reports whether a and b hold the same rules in the same order, whether or
// not they are one object: state kept per key under one of them (a store's guess, a
// lease) means the same under the other. A tenant recompiled with unchanged rules
// (a reload, another API key of the tenant) gives a new *Set with the same rules.
// Zones are not compared.
func SameRules(a, b *Set) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || len(a.rules) != len(b.rules) {
		return false
	}
	for i := range a.rules {
		if a.rules[i].Rule != b.rules[i].Rule {
			return false
		}
	}
	return true
}
