package ddbthrottle

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The messages of the refusals, after DynamoDB's.
const (
	msgProvisioned = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	msgOnDemand    = "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html."
	namespace      = "com.amazonaws.dynamodb.v20120810#"
)

// throttlingReason is one entry of an exception's ThrottlingReasons.
type throttlingReason struct {
	Reason   string `json:"reason"`
	Resource string `json:"resource"`
}

type cancellationReason struct {
	Code    string `json:"Code"`
	Message string `json:"Message,omitempty"`
}

// refusal is the answer DynamoDB gives a request that the key's capacity refused.
func (t *Throttle) refusal(req *http.Request, op string, charges []charge, refused []bool) *http.Response {
	if op == "TransactWriteItems" {
		return t.cancelled(req, charges, refused)
	}
	c := charges[0]
	kind := "Read"
	if c.write {
		kind = "Write"
	}
	reasons := []throttlingReason{{Reason: "Table" + kind + "KeyRangeThroughputExceeded", Resource: arn(c.item.table)}}
	if t.cfg.OnDemand {
		return errorResponse(req, "ThrottlingException", map[string]any{"message": msgOnDemand, "throttlingReasons": reasons})
	}
	return errorResponse(req, "ProvisionedThroughputExceededException", map[string]any{"message": msgProvisioned, "ThrottlingReasons": reasons})
}

// cancelled is the TransactionCanceledException of a transaction an item's capacity
// refused: one reason per item, in order.
func (t *Throttle) cancelled(req *http.Request, charges []charge, refused []bool) *http.Response {
	code, msg := "ProvisionedThroughputExceeded", msgProvisioned
	if t.cfg.OnDemand {
		code, msg = "ThrottlingError", msgOnDemand
	}
	reasons := make([]cancellationReason, len(charges))
	codes := make([]string, len(charges))
	for i := range charges {
		reasons[i] = cancellationReason{Code: "None"}
		if refused[i] {
			reasons[i] = cancellationReason{Code: code, Message: msg}
		}
		codes[i] = reasons[i].Code
	}
	return errorResponse(req, "TransactionCanceledException", map[string]any{
		"Message":             "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]",
		"CancellationReasons": reasons,
	})
}

// arn is the ARN of table in throttling reasons, in us-east-1 of account 000000000000.
func arn(table string) string {
	return "arn:aws:dynamodb:us-east-1:000000000000:table/" + table
}

// errorResponse is an awsJson1_0 error: HTTP 400, the error type in x-amzn-ErrorType
// and in the body's __type, and the body's CRC32 as DynamoDB sends it.
func errorResponse(req *http.Request, errorType string, body map[string]any) *http.Response {
	body["__type"] = namespace + errorType
	raw, _ := json.Marshal(body)
	var id [16]byte
	rand.Read(id[:])
	h := http.Header{}
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amzn-ErrorType", errorType)
	h.Set("X-Amzn-RequestId", strings.ToUpper(hex.EncodeToString(id[:])))
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(raw)), 10))
	return &http.Response{
		Status: "400 Bad Request", StatusCode: http.StatusBadRequest,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(raw)), ContentLength: int64(len(raw)),
		Request: req,
	}
}
