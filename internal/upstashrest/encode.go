package upstashrest

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

var errNotUTF8 = errors.New("not valid UTF-8 (the REST API carries arguments as JSON strings)")

// commandName returns the upper-cased first argument, for error messages.
func commandName(cmd []string) string {
	if len(cmd) == 0 || len(cmd[0]) > 32 {
		return ""
	}
	return strings.ToUpper(cmd[0])
}

// command returns args as the REST API takes them, every argument a string (encoded as
// a JSON string), so that integers beyond 2^53 stay exact whatever the server's JSON
// parser does with numbers.
func command(args []any) ([]string, error) {
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	cmd := make([]string, len(args))
	for i, a := range args {
		var err error
		if cmd[i], err = argString(a); err != nil {
			return nil, fmt.Errorf("%s argument %d: %w", commandName(cmd[:i]), i, err)
		}
	}
	return cmd, nil
}

// argString returns a as the string sent: strings and []byte as they are (they must
// be valid UTF-8), integers and floats in decimal, bools as 1 or 0.
func argString(a any) (string, error) {
	switch v := a.(type) {
	case string:
		if !utf8.ValidString(v) {
			return "", errNotUTF8
		}
		return v, nil
	case []byte:
		if !utf8.Valid(v) {
			return "", errNotUTF8
		}
		return string(v), nil
	case int, int64, int32, uint, uint64, uint32:
		return fmt.Sprint(v), nil
	case float64:
		return floatString(v)
	case float32:
		return floatString(float64(v))
	case bool:
		if v {
			return "1", nil
		}
		return "0", nil
	}
	return "", fmt.Errorf("unsupported type %T", a)
}

func floatString(f float64) (string, error) {
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
