//go:build linux || darwin

package upstashrest

import "syscall"

// canPeek: peek works on this system.
const canPeek = true

// peek looks, without waiting and without taking it, for a byte or the end of the
// stream on the socket fd, leaving the answer in peekErr: EAGAIN when there is
// neither. It is a syscall.RawConn.Read callback.
func (pc *pconn) peek(fd uintptr) bool {
	_, _, pc.peekErr = syscall.Recvfrom(int(fd), pc.peekBuf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return true
}
