package authorizer

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/edgelimit/edgelimit/internal/request"
	"github.com/edgelimit/edgelimit/pkg/gate"
)

// HTTPResponse chooses the HTTP API (v2) response format.
type HTTPResponse string

// The HTTP API response formats (EDGELIMIT_HTTP_API_RESPONSE).
const (
	SimpleResponse HTTPResponse = "simple" // {"isAuthorized": ..., "context": ...}
	IAMResponse    HTTPResponse = "iam"    // an IAM policy on the routeArn
)

// UsageIdentifier chooses the REST response's usageIdentifierKey.
type UsageIdentifier string

// The usageIdentifierKey choices (EDGELIMIT_USAGE_IDENTIFIER); see the package doc.
const (
	UsageNone   UsageIdentifier = "none"    // leave it out (the default)
	UsageAPIKey UsageIdentifier = "api-key" // the caller's API key, for usage plans
)

// ErrUnauthorized is API Gateway's contract for a 401: the error whose message is
// exactly "Unauthorized".
var ErrUnauthorized = errors.New("Unauthorized")

// Config configures a Handler. Gate is required; other zero values mean the defaults
// written beside each field.
type Config struct {
	Gate *gate.Gate
	// HTTPResponse is the HTTP API response format; "" means SimpleResponse.
	HTTPResponse HTTPResponse
	// UsageIdentifier is what the REST response carries as usageIdentifierKey; ""
	// means UsageNone.
	UsageIdentifier UsageIdentifier
	// Logger receives one line per decision; nil means the line slog's JSON handler
	// would write, on LogWriter at LogLevel, written without slog (faster).
	Logger *slog.Logger
	// LogWriter and LogLevel are those of the default logger (Logger nil): nil means
	// stdout; the zero level is Info, and above it the decisions are not logged.
	LogWriter io.Writer
	LogLevel  slog.Level
	// Metrics receives one EMF document per decision; nil means stdout.
	Metrics io.Writer
	// Namespace is the CloudWatch metrics namespace; "" means "edgelimit".
	Namespace string
}

// Handler answers authorizer events. Create it with New; it is safe for concurrent use.
type Handler struct {
	gate    *gate.Gate
	events  *request.EventDecoder // of the gate's key header
	http    HTTPResponse
	usage   UsageIdentifier
	log     *slog.Logger // nil: lines
	lines   *decisionLog
	metrics *emf
}

// New checks cfg and returns a Handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Gate == nil {
		return nil, errors.New("authorizer: Config.Gate is required")
	}
	switch cfg.HTTPResponse {
	case "":
		cfg.HTTPResponse = SimpleResponse
	case SimpleResponse, IAMResponse:
	default:
		return nil, fmt.Errorf("authorizer: HTTP API response %q: want %q or %q", cfg.HTTPResponse, SimpleResponse, IAMResponse)
	}
	switch cfg.UsageIdentifier {
	case "":
		cfg.UsageIdentifier = UsageNone
	case UsageNone, UsageAPIKey:
	default:
		return nil, fmt.Errorf("authorizer: usage identifier %q: want %q or %q", cfg.UsageIdentifier, UsageNone, UsageAPIKey)
	}
	if cfg.LogWriter == nil {
		cfg.LogWriter = os.Stdout
	}
	if cfg.Metrics == nil {
		cfg.Metrics = os.Stdout
	}
	cfg.Namespace = cmp.Or(cfg.Namespace, "edgelimit")
	return &Handler{gate: cfg.Gate, events: request.NewEventDecoder(cfg.Gate.KeyHeader()),
		http: cfg.HTTPResponse, usage: cfg.UsageIdentifier, log: cfg.Logger, lines: &decisionLog{w: cfg.LogWriter, level: cfg.LogLevel},
		metrics: newEMF(cfg.Metrics, cfg.Namespace)}, nil
}

// Invoke answers one raw authorizer event: it is the lambda.Handler of the function.
// It returns ErrUnauthorized for a 401 and a descriptive error for an event it cannot
// answer (see the package doc); backend failures are answered, never errors. It decodes
// the event once (request.EventDecoder, which reads only the key header's members of
// the headers) and encodes with encoding/json the bytes of the response REST, Token,
// HTTP or HTTPIAM returns for it, from aws-lambda-go's response type with the context
// as a struct (replyContext) instead of its map.
func (h *Handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	ev, err := h.events.Decode(payload)
	if err != nil {
		return nil, err
	}
	switch {
	case ev.Kind == request.HTTPEvent && h.http == IAMResponse:
		resp, res, err := h.iamReply(ctx, ev)
		return encode(iamWire{resp, newReplyContext(&res)}, err)
	case ev.Kind == request.HTTPEvent:
		resp, res, err := h.simpleReply(ctx, ev)
		return encode(simpleWire{resp, newReplyContext(&res)}, err)
	}
	resp, res, err := h.policyReply(ctx, ev)
	return encode(newPolicyWire(resp, newReplyContext(&res)), err)
}

// encode returns the JSON of reply, unless err.
func encode(reply any, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return json.Marshal(reply)
}

// KeyHeader is the name of the header that carries the API key (gate.Gate.KeyHeader),
// for callers that render the answer themselves (a 401 names it).
func (h *Handler) KeyHeader() string { return h.gate.KeyHeader() }
