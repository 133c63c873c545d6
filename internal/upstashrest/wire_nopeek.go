//go:build !(linux || darwin)

package upstashrest

// canPeek: peek does not work on this system, where an idle connection the server
// closed shows only when a request's write fails on it.
const canPeek = false

func (pc *pconn) peek(uintptr) bool { return true }
