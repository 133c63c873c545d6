package hotcounter

import (
	"context"
	"fmt"

	"github.com/edgelimit/edgelimit/pkg/store"
)

var _ store.Settler = (*Store)(nil)

// Settle passes a settlement through to Next: the units a hot counter's requests
// spend were counted in Next when their lease was reserved, so a refund gives them
// back there and an excess is charged there, as for a cold counter. Concurrency rules
// are never served from a lease (eligible), so their slots are Next's alone. The
// error says so when Next does not settle reservations.
func (s *Store) Settle(ctx context.Context, cs []store.Counter, st store.Settlement) (bool, error) {
	n, ok := s.next.(store.Settler)
	if !ok {
		return false, fmt.Errorf("hotcounter: %T does not settle reservations", s.next)
	}
	return n.Settle(ctx, cs, st)
}
