package upstashrest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// commandName returns the upper-cased first argument, for error messages.
func commandName(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if s, ok := args[0].(string); ok && len(s) <= 32 {
		return strings.ToUpper(s)
	}
	return ""
}

// encodeCommand renders a command as the JSON array the REST API takes. Every
// argument is sent as a JSON string, so integers beyond 2^53 stay exact whatever
// the server's JSON parser does with numbers.
func encodeCommand(args []any) ([]byte, error) {
	strs, err := commandStrings(args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(strs)
}

// encodeBatch renders commands as the JSON array of arrays that /pipeline and
// /multi-exec take.
func encodeBatch(cmds [][]any) ([]byte, error) {
	all := make([][]string, len(cmds))
	for i, cmd := range cmds {
		strs, err := commandStrings(cmd)
		if err != nil {
			return nil, fmt.Errorf("command %d: %w", i, err)
		}
		all[i] = strs
	}
	return json.Marshal(all)
}

func commandStrings(args []any) ([]string, error) {
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	out := make([]string, len(args))
	for i, a := range args {
		s, err := argString(a)
		if err != nil {
			return nil, fmt.Errorf("%s argument %d: %w", commandName(args), i, err)
		}
		out[i] = s
	}
	return out, nil
}

func argString(a any) (string, error) {
	switch v := a.(type) {
	case string:
		return utf8Arg(v)
	case []byte:
		return utf8Arg(string(v))
	case int:
		return strconv.Itoa(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case int32:
		return strconv.FormatInt(int64(v), 10), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	case uint32:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint:
		return strconv.FormatUint(uint64(v), 10), nil
	case float64:
		return floatArg(v)
	case float32:
		return floatArg(float64(v))
	case bool:
		if v {
			return "1", nil
		}
		return "0", nil
	}
	return "", fmt.Errorf("unsupported type %T", a)
}

func utf8Arg(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", errors.New("not valid UTF-8 (the REST API carries arguments as JSON strings)")
	}
	return s, nil
}

func floatArg(f float64) (string, error) {
	switch {
	case math.IsNaN(f):
		return "", errors.New("NaN")
	case math.IsInf(f, 1):
		return "+inf", nil
	case math.IsInf(f, -1):
		return "-inf", nil
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}
