package authorizer_test

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// fault is how a faultProxy treats connections.
type fault int

const (
	forward fault = iota // pass bytes both ways
	refuse               // nothing listens: connections are refused
	hang                 // accept, read, never answer
	slow                 // accept, wait, then forward each reply after the wait
)

func (f fault) String() string {
	return [...]string{"forward", "refused", "accepted, never answered", "answered slowly"}[f]
}

// faultProxy is a TCP proxy on 127.0.0.1 in front of a store, whose fault the test sets.
// Setting a fault closes the connections in flight, so every request after it meets
// the new behaviour.
type faultProxy struct {
	t      testing.TB
	target string
	addr   string
	delay  time.Duration // for slow

	mu    sync.Mutex
	fault fault
	ln    net.Listener
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

func newFaultProxy(t testing.TB, target string, delay time.Duration) *faultProxy {
	t.Helper()
	p := &faultProxy{t: t, target: target, delay: delay, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	t.Cleanup(p.close)
	return p
}

func (p *faultProxy) serve(ln net.Listener) {
	p.ln = ln
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.track(c)
			p.wg.Add(1)
			go func() { defer p.wg.Done(); p.handle(c) }()
		}
	}()
}

func (p *faultProxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[c] = true
}

// set changes the fault: it drops every connection, and closes or reopens the
// listener on the same port.
func (p *faultProxy) set(f fault) {
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
	old, ln := p.fault, p.ln
	p.fault = f
	p.mu.Unlock()
	switch {
	case f == refuse && old != refuse:
		ln.Close()
	case f != refuse && old == refuse:
		ln, err := net.Listen("tcp", p.addr) // Go listeners set SO_REUSEADDR
		if err != nil {
			p.t.Fatalf("reopen %s: %v", p.addr, err)
		}
		p.mu.Lock()
		p.serve(ln)
		p.mu.Unlock()
	}
}

func (p *faultProxy) handle(c net.Conn) {
	p.mu.Lock()
	f := p.fault
	p.mu.Unlock()
	switch f {
	case hang:
		_, _ = io.Copy(io.Discard, c) // until the client or set closes it
		return
	case slow:
		timer := time.NewTimer(p.delay)
		defer timer.Stop()
		<-timer.C
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.track(up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { p.copyReplies(c, up, f); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	<-done
}

// copyReplies copies the store's replies to the client; under slow, each one after the
// delay (the store's latency), so that a connection opened in the background while a
// request was answered by the fail mode (the gate lets its store call run on past the
// budget) does not make the store fast again.
func (p *faultProxy) copyReplies(c, up net.Conn, f fault) {
	if f != slow {
		_, _ = io.Copy(c, up)
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := up.Read(buf)
		if n > 0 {
			time.Sleep(p.delay) // the store's latency, not a synchronisation
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *faultProxy) close() {
	p.mu.Lock()
	if p.fault != refuse {
		p.ln.Close()
	}
	p.fault = refuse
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
