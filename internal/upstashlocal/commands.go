package upstashlocal

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// resultBody and errorBody are the two shapes of an answer, alone or in an array.
type resultBody struct {
	Result any `json:"result"`
}

type errorBody struct {
	Error string `json:"error"`
}

// httpError is a request the server answers with status and {"error": msg}.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// notOverREST lists the commands that change a connection's state, which a
// pooled connection must not carry into the next request. Upstash answers MULTI
// and friends only over TCP too; its REST transactions are /multi-exec.
var notOverREST = map[string]bool{
	"MULTI": true, "EXEC": true, "DISCARD": true, "WATCH": true, "UNWATCH": true,
	"SELECT": true, "AUTH": true, "HELLO": true, "RESET": true, "QUIT": true,
	"CLIENT": true, "MONITOR": true, "SYNC": true, "PSYNC": true,
	"SUBSCRIBE": true, "PSUBSCRIBE": true, "SSUBSCRIBE": true,
	"UNSUBSCRIBE": true, "PUNSUBSCRIBE": true, "SUNSUBSCRIBE": true,
}

// parseJSON decodes one JSON value, numbers kept as text, with nothing after it.
func parseJSON(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, badRequest("ERR failed to parse command: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest("ERR failed to parse command: data after the JSON value")
	}
	return v, nil
}

// parseCommand turns a decoded JSON array into a command's arguments. Strings,
// numbers (as written) and booleans ("true", "false") are accepted.
func parseCommand(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, badRequest("ERR a command is a non-empty JSON array")
	}
	args := make([]string, len(arr))
	for i, a := range arr {
		switch a := a.(type) {
		case string:
			args[i] = a
		case json.Number:
			args[i] = a.String()
		case bool:
			args[i] = strconv.FormatBool(a)
		default:
			return nil, badRequest("ERR argument %d must be a string, a number or a boolean", i)
		}
	}
	if name := strings.ToUpper(args[0]); notOverREST[name] {
		return nil, badRequest("ERR command is not available over REST: %s", name)
	}
	return args, nil
}

// parseCommands turns a decoded JSON array of arrays into commands.
func parseCommands(v any) ([][]string, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, badRequest("ERR a pipeline is a non-empty JSON array of commands")
	}
	cmds := make([][]string, len(arr))
	for i, c := range arr {
		cmd, err := parseCommand(c)
		if err != nil {
			return nil, badRequest("ERR command %d: %s", i, strings.TrimPrefix(err.Error(), "ERR "))
		}
		cmds[i] = cmd
	}
	return cmds, nil
}

func anys(args []string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}

// runOne runs one command and returns the answer's status and body.
func (s *Server) runOne(ctx context.Context, args []string, b64 bool) (int, any, error) {
	fix := s.scripts.rewrite(args)
	v, err := s.rdb.Do(ctx, anys(args)...).Result()
	item, err := answer(v, err, fix, b64)
	if err != nil {
		return 0, nil, err
	}
	if e, ok := item.(errorBody); ok {
		return http.StatusBadRequest, e, nil
	}
	return http.StatusOK, item, nil
}

// runBatch runs commands in one pipeline to Redis, wrapped in MULTI/EXEC when tx
// is set, and returns one answer per command.
func (s *Server) runBatch(ctx context.Context, cmds [][]string, tx bool, b64 bool) (int, any, error) {
	fixes := make([]func(any) any, len(cmds))
	queue := func(p redis.Pipeliner) error {
		for i, args := range cmds {
			fixes[i] = s.scripts.rewrite(args)
			p.Do(ctx, anys(args)...)
		}
		return nil
	}
	var done []redis.Cmder
	if tx {
		done, _ = s.rdb.TxPipelined(ctx, queue)
	} else {
		done, _ = s.rdb.Pipelined(ctx, queue)
	}
	items := make([]any, len(done))
	for i, c := range done {
		v, err := c.(*redis.Cmd).Result()
		item, err := answer(v, err, fixes[i], b64)
		if err != nil {
			return 0, nil, err
		}
		items[i] = item
	}
	if tx {
		if msg, aborted := execAbort(items); aborted {
			return http.StatusBadRequest, errorBody{msg}, nil
		}
	}
	return http.StatusOK, items, nil
}

// execAbort reports a transaction Redis discarded because a command was refused
// while queueing, with that command's error in the message.
func execAbort(items []any) (string, bool) {
	aborted, cause := false, ""
	for _, it := range items {
		e, ok := it.(errorBody)
		switch {
		case !ok:
		case strings.HasPrefix(e.Error, "EXECABORT"):
			aborted = true
		case cause == "":
			cause = e.Error
		}
	}
	if !aborted {
		return "", false
	}
	return "EXECABORT Transaction discarded because of previous errors: " + cause, true
}

// answer turns a go-redis result into resultBody or errorBody. A failure that is
// not Redis's answer (a broken connection) is returned as an error.
func answer(v any, err error, fix func(any) any, b64 bool) (any, error) {
	var rerr redis.Error
	switch {
	case errors.Is(err, redis.Nil):
		return resultBody{nil}, nil
	case errors.As(err, &rerr):
		return errorBody{err.Error()}, nil
	case err != nil:
		return nil, err
	}
	if fix != nil {
		v = fix(v)
	}
	return resultBody{encode(v, b64)}, nil
}

// encode prepares a RESP2 value for JSON: strings in base64 when b64 is set
// (except "OK", as Upstash sends it), recursively in arrays; integers and nil
// as they are. An error inside an array (from EXEC or Lua) becomes its text.
func encode(v any, b64 bool) any {
	switch v := v.(type) {
	case nil, int64:
		return v
	case string:
		if b64 && v != "OK" {
			return base64.StdEncoding.EncodeToString([]byte(v))
		}
		return v
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = encode(e, b64)
		}
		return out
	case error:
		return encode(v.Error(), b64)
	}
	return encode(fmt.Sprint(v), b64) // RESP3 types, which RESP2 never sends
}
