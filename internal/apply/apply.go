package apply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ErrConflict is wrapped by the error of a write that found its object changed since
// Read read it (412, or 409 for a create, 404 for an object gone).
var ErrConflict = errors.New("changed on the server since it was read")

// Print writes the diff: one line per change, then a summary line.
func Print(w io.Writer, changes []Change, dryRun bool) {
	for _, ch := range changes {
		fmt.Fprintln(w, ch)
	}
	add, change, del := count(changes)
	fmt.Fprintf(w, "%d to add, %d to change, %d to delete", add, change, del)
	if dryRun {
		fmt.Fprint(w, " (dry run: nothing written)")
	}
	fmt.Fprintln(w)
}

func count(changes []Change) (add, change, del int) {
	for _, ch := range changes {
		switch ch.Op {
		case '+':
			add++
		case '~':
			change++
		default:
			del++
		}
	}
	return add, change, del
}

// Write makes the changes in order and returns how many it made. It stops at the first
// that fails: an error that names the object, wrapping ErrConflict when another client
// changed the object after Read.
func Write(ctx context.Context, c *Client, changes []Change) (int, error) {
	for i, ch := range changes {
		if err := ch.write(ctx, c); err != nil {
			return i, err
		}
	}
	return len(changes), nil
}

func (ch Change) write(ctx context.Context, c *Client) error {
	r, err := c.do(ctx, ch.method, ch.path, ch.body, ch.ifMatch)
	if err != nil {
		return fmt.Errorf("%s %s: %w (it may or may not have been written)", ch.Kind, ch.ID, err)
	}
	if r.status == ch.want || ch.Kind == "key" && r.status == http.StatusOK {
		return nil
	}
	if r.status == http.StatusPreconditionFailed || r.status == http.StatusNotFound ||
		r.status == http.StatusConflict && ch.Op == '+' {
		return fmt.Errorf("%s %s: %w (%d %s): nothing more was written; run edgelimit apply again to see the new diff",
			ch.Kind, ch.ID, ErrConflict, r.status, http.StatusText(r.status))
	}
	return fmt.Errorf("%s %s: %w", ch.Kind, ch.ID, apiError(ch.method, ch.path, r))
}

// Run is `edgelimit apply` once the file is read: it reads the server, prints the diff
// on w and, unless dryRun, writes it and prints what it wrote.
func Run(ctx context.Context, c *Client, want *State, prune, dryRun bool, w io.Writer) error {
	have, err := Read(ctx, c, len(want.Keys) > 0 || prune)
	if err != nil {
		return err
	}
	changes, err := Diff(want, have, prune)
	if err == nil && len(changes) > 0 {
		if err = have.Refresh(ctx, c, changes); err == nil {
			changes, err = Diff(want, have, prune)
		}
	}
	if err != nil {
		return err
	}
	Print(w, changes, dryRun)
	if dryRun || len(changes) == 0 {
		return nil
	}
	n, err := Write(ctx, c, changes)
	if err != nil {
		return fmt.Errorf("%w\n%d of %d changes were written before it", err, n, len(changes))
	}
	add, change, del := count(changes)
	fmt.Fprintf(w, "applied: %d added, %d changed, %d deleted\n", add, change, del)
	return nil
}

// Export reads the server's plans, tenants and keys and encodes them as a file (YAML,
// or JSON when json is set) that Run applies as no change.
func Export(ctx context.Context, c *Client, json bool) ([]byte, error) {
	s, err := Read(ctx, c, true)
	if err != nil {
		return nil, err
	}
	return Encode(s, !json)
}
