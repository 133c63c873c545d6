package dynamodb

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/limiter"
)

// Regression (a counter item's bad number was quoted in the error, and so in the
// decision log's reason): a stored value that does not read is described by its
// attribute and length, never by its bytes.
func TestStoredNumbersReachNoError(t *testing.T) {
	const marker = "9999999999999999999999999999999999999"
	var st limiter.State
	if _, err := intAttr(map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "-" + marker}}, "n"); err == nil || strings.Contains(err.Error(), marker) {
		t.Errorf("intAttr of a negative number: %v; want an error without the value", err)
	}
	item := map[string]types.AttributeValue{"b" + fTAT: &types.AttributeValueMemberN{Value: marker + marker}}
	if err := readBucket(item, "b", 1, &st); err == nil || strings.Contains(err.Error(), marker) {
		t.Errorf("readBucket of a TAT out of range: %v; want an error without the value", err)
	}
}
