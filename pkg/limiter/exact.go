package limiter

import (
	"math"
	"math/bits"
)

// The rule bounds let a product of two values exceed int64 (a count of 1e12 times a
// period of 31 days in microseconds is about 2.7e24), so every such product goes
// through these helpers, which keep it in 128 bits: math/bits, no allocation.

// mulDiv returns floor(a*b/d) for non-negative a, b and positive d, exactly, with a
// 128-bit intermediate; a quotient beyond int64 saturates at math.MaxInt64.
func mulDiv(a, b, d int64) int64 {
	return mulAddDiv(a, b, 0, d)
}

// mulAddDiv returns floor((a*b + c)/d) for non-negative a, b, c and positive d; a
// quotient beyond int64 saturates at math.MaxInt64.
func mulAddDiv(a, b, c, d int64) int64 {
	q, _, ok := mulAddDivMod(a, b, c, d)
	if !ok {
		return math.MaxInt64
	}
	return q
}

// mulAddDivMod returns the quotient and remainder of (a*b + c)/d for non-negative a,
// b, c and positive d, and whether the quotient fits in int64 (when not, both are 0).
func mulAddDivMod(a, b, c, d int64) (q, rem int64, ok bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	var carry uint64
	lo, carry = bits.Add64(lo, uint64(c), 0)
	hi += carry
	if hi >= uint64(d) {
		return 0, 0, false
	}
	uq, ur := bits.Div64(hi, lo, uint64(d))
	if uq > math.MaxInt64 {
		return 0, 0, false
	}
	return int64(uq), int64(ur), true
}

// mulDivBelow returns floor((a*b - 1)/d) for a, b >= 1 and positive d: the largest x
// with x*d < a*b. A quotient beyond int64 saturates at math.MaxInt64.
func mulDivBelow(a, b, d int64) int64 {
	q, rem, ok := mulAddDivMod(a, b, 0, d)
	switch {
	case !ok:
		return math.MaxInt64
	case rem == 0:
		return q - 1
	}
	return q
}
