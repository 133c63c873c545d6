package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/edgelimit/edgelimit/pkg/gate"
)

// SettleFunc settles a reservation at a cost: gate.Gate.Settle.
type SettleFunc func(ctx context.Context, id string, cost int64) (gate.SettleResult, error)

// settleReservation answers POST /reservations/{id} {"cost": N}: 200 with the
// gate.SettleResult when it was settled now or before (already_settled); 404 for an
// unknown (malformed or forged) id or without reservations, 410 for an expired one,
// 409 when the tenant's rules changed since. Settles are not in the audit trail: like
// decisions, there is one per request.
func (h *Handler) settleReservation(w http.ResponseWriter, r *http.Request, p params) error {
	body, err := readBody(r, "application/json")
	if err != nil {
		return err
	}
	cost, err := decodeSettle(body)
	if err != nil {
		return err
	}
	if h.settle == nil {
		return newError(problemNotFound, "reservations are off: this API has no reservation secret (EDGELIMIT_RESERVATION_SECRET or EDGELIMIT_RESERVATION_SECRET_ARN)")
	}
	res, err := h.settle(r.Context(), p.id, cost)
	if err != nil {
		return settleError(err)
	}
	if e := settleProblem(res); e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// decodeSettle reads {"cost": N}: N an integer from 0 to 10^12, no other member.
func decodeSettle(body []byte) (int64, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var b struct {
		Cost *int64 `json:"cost"`
	}
	if err := dec.Decode(&b); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return 0, fieldError("cost", "", "must be an integer from 0 to 10^12")
		}
		return 0, newError(problemInvalidJSON, "the body must be {\"cost\": N}: "+err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, newError(problemInvalidJSON, "the body must be one JSON object")
	}
	if b.Cost == nil {
		return 0, fieldError("cost", "", "is required: the request's real cost")
	}
	return *b.Cost, nil
}

// settleProblem is the problem of a settle that changed nothing for a reason the
// client must hear; nil for settled and already_settled.
func settleProblem(res gate.SettleResult) *apiError {
	switch res.Status {
	case gate.SettleUnknown:
		return newError(problemNotFound, "no such reservation: the id is malformed, forged or of another secret")
	case gate.SettleOff:
		return newError(problemNotFound, "reservations are off: the gate has no reservation secret")
	case gate.SettleExpired:
		return newError(problemReservationExpired, "the reservation expired: its estimate stands")
	case gate.SettleRulesChanged:
		return newError(problemRulesChanged, "the tenant changed since the reservation (or was deleted): its estimate stands")
	}
	return nil
}

// settleError is the problem of a settle that failed.
func settleError(err error) *apiError {
	switch {
	case errors.Is(err, gate.ErrSettleCost):
		return fieldError("cost", "", "must be an integer from 0 to 10^12")
	case errors.Is(err, gate.ErrNoSettler):
		return &apiError{slug: problemInternal, cause: err, detail: "the counter store does not settle reservations"}
	}
	return &apiError{slug: problemUnavailable, cause: err, detail: "a store failed: nothing was settled, retry"}
}
