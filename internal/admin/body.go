package admin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// The request media types.
const (
	jsonType       = "application/json"
	mergePatchType = "application/merge-patch+json" // RFC 7396
)

// readBody checks that the request's Content-Type is mediaType (with no charset but
// UTF-8) and returns its body, at most MaxBodyBytes: 415 and 413 problems otherwise.
// A body with a name twice in an object, a known name in another case or invalid
// UTF-8 is a 422 naming the field (checkStrict).
func readBody(r *http.Request, mediaType string) ([]byte, error) {
	if err := checkContentType(r.Header.Get("Content-Type"), mediaType); err != nil {
		return nil, err
	}
	if r.ContentLength > MaxBodyBytes {
		return nil, tooLarge(r.ContentLength)
	}
	if r.Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, newError(problemInvalidJSON, "reading the body: "+err.Error())
	}
	if len(body) > MaxBodyBytes {
		return nil, tooLarge(-1)
	}
	if err := checkStrict(body); err != nil {
		return nil, err
	}
	return body, nil
}

func tooLarge(n int64) *apiError {
	detail := fmt.Sprintf("the body is larger than %d bytes", MaxBodyBytes)
	if n >= 0 {
		detail = fmt.Sprintf("the body is %d bytes; the most is %d", n, MaxBodyBytes)
	}
	return newError(problemTooLarge, detail)
}

// checkContentType reports a 415 problem unless header names mediaType.
func checkContentType(header, mediaType string) error {
	e := &apiError{slug: problemUnsupportedMediaType, field: "Content-Type", detail: "Content-Type must be " + mediaType}
	if mediaType == mergePatchType {
		e.header = http.Header{"Accept-Patch": {mergePatchType}}
	}
	if header == "" {
		e.detail += ", and is missing"
		return e
	}
	got, ps, err := mime.ParseMediaType(header)
	if err != nil || got != mediaType {
		e.detail += fmt.Sprintf(", not %q", header)
		return e
	}
	if cs, ok := ps["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		e.detail += " with charset utf-8 or none"
		return e
	}
	return nil
}

// readEmptyBody accepts a POST body that carries nothing: none at all, or the JSON
// object {} (as application/json). Anything else is a problem, so that a client that
// believes it is passing options learns that none exist.
func readEmptyBody(r *http.Request) error {
	if r.Header.Get("Content-Type") == "" && (r.Body == nil || r.ContentLength == 0 || isEmpty(r.Body)) {
		return nil
	}
	body, err := readBody(r, jsonType)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var empty struct{}
	if err := dec.Decode(&empty); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if name, _ = strconv.Unquote(name); name == "" {
				name = `""`
			}
			return fieldError(name, "", "unknown field: this request takes no fields")
		}
		return newError(problemInvalidJSON, "the body must be empty or the JSON object {}: "+err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return newError(problemInvalidJSON, "data after the JSON value")
	}
	return nil
}

// isEmpty reports whether body holds no byte; it consumes the one byte it reads,
// which is fine as the request is then refused.
func isEmpty(body io.Reader) bool {
	var b [1]byte
	n, _ := io.ReadFull(body, b[:])
	return n == 0
}
