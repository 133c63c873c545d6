package limiter

import (
	"math"
	"math/bits"
)

// mulDiv returns floor(a*b/d) for non-negative a, b and positive d, exactly, with a
// 128-bit intermediate; a quotient beyond int64 saturates at math.MaxInt64. The rule
// bounds keep every call far from saturation.
func mulDiv(a, b, d int64) int64 {
	return mulAddDiv(a, b, 0, d)
}

// mulAddDiv returns floor((a*b + c)/d) for non-negative a, b, c and positive d.
func mulAddDiv(a, b, c, d int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	var carry uint64
	lo, carry = bits.Add64(lo, uint64(c), 0)
	hi += carry
	if hi >= uint64(d) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(d))
	return int64(q)
}
