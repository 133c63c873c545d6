package upstashrest

import (
	"context"
	"sync"
	"time"
)

// pipelineDepth is how many requests a pipelining Client keeps in flight: the calls
// that arrive while they are go together in the next one.
const pipelineDepth = 2

// pipeliner batches the commands of concurrent calls (Config.Pipelining): a call sends
// its command at once when fewer than pipelineDepth requests are in flight, and
// otherwise waits in the queue, which the next request to leave takes whole, as one
// /pipeline request. A lone caller's command goes alone, as without pipelining.
type pipeliner struct {
	c        *Client
	mu       sync.Mutex
	queue    []*call
	inFlight int
}

// call is one command waiting for its reply.
type call struct {
	ctx   context.Context
	cmd   []string
	done  chan struct{}
	reply Reply
	err   error
}

// do sends cmd, alone or with the commands of other calls, and returns its reply.
// A call whose context ends returns its error at once; its command may still run.
func (p *pipeliner) do(ctx context.Context, cmd []string) (Reply, error) {
	cl := &call{ctx: ctx, cmd: cmd, done: make(chan struct{})}
	p.mu.Lock()
	p.queue = append(p.queue, cl)
	var batch []*call
	if p.inFlight < pipelineDepth {
		batch = p.take()
	}
	p.mu.Unlock()
	if batch != nil {
		p.send(batch)
	}
	select {
	case <-cl.done:
		return cl.reply, cl.err
	case <-ctx.Done():
		return Reply{}, ctx.Err()
	}
}

// take empties the queue into a batch and counts its request in flight; mu is held.
func (p *pipeliner) take() []*call {
	batch := p.queue
	p.queue = nil
	p.inFlight++
	return batch
}

// send sends batch, hands each call its result, and when calls queued meanwhile,
// sends them in a new goroutine.
func (p *pipeliner) send(batch []*call) {
	if len(batch) == 1 { // on its caller's context: there is no other caller to fail
		cl := batch[0]
		cl.reply, cl.err = p.c.send(cl.ctx, cl.cmd)
	} else {
		p.sendBatch(batch)
	}
	for _, cl := range batch {
		close(cl.done)
	}
	p.mu.Lock()
	p.inFlight--
	var next []*call
	if len(p.queue) > 0 {
		next = p.take()
	}
	p.mu.Unlock()
	if next != nil {
		go p.send(next)
	}
}

// sendBatch sends the commands of batch in one /pipeline request and sets each
// call's result.
func (p *pipeliner) sendBatch(batch []*call) {
	ctx, cancel := batchContext(batch)
	defer cancel()
	cmds := make([][]string, len(batch))
	for i, cl := range batch {
		cmds[i] = cl.cmd
	}
	results, err := p.c.postBatch(ctx, "/pipeline", cmds)
	for i, cl := range batch {
		if err != nil {
			cl.err = err
			continue
		}
		cl.reply, cl.err = results[i].Reply, results[i].Err
	}
}

// batchContext is the context of a batch's request: none of its callers' cancellation
// (one caller giving up must not fail the others), and the latest of their deadlines
// when they all have one.
func batchContext(batch []*call) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, cl := range batch {
		d, ok := cl.ctx.Deadline()
		if !ok {
			return context.WithCancel(context.WithoutCancel(batch[0].ctx))
		}
		if d.After(latest) {
			latest = d
		}
	}
	return context.WithDeadline(context.WithoutCancel(batch[0].ctx), latest)
}
