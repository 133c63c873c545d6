package dynamodb

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// maxScans bounds the Scan calls of one List: a page can come back short (with a next
// token) when key items crowd the scan.
const maxScans = 16

// List scans the table for tenant items, in DynamoDB's order. The page token encodes
// the partition key the scan resumes after: the last tenant returned, or the scan's
// LastEvaluatedKey.
func (s *Tenants) List(ctx context.Context, limit int, pageToken string) ([]tenant.Tenant, string, error) {
	return list(s, ctx, tenantPrefix, limit, pageToken, decodeTenant, func(t tenant.Tenant) string { return t.ID })
}

// list scans the table for the items whose partition key starts with prefix, decoded
// by decode, as List defines its pages; idOf names an item after its prefix.
func list[T any](s *Tenants, ctx context.Context, prefix string, limit int, pageToken string,
	decode func(map[string]types.AttributeValue) (T, error), idOf func(T) string) ([]T, string, error) {
	start, err := parseToken(pageToken)
	if err != nil {
		return nil, "", err
	}
	limit = store.ListLimit(limit)
	var out []T
	for range maxScans {
		page, err := s.scan(ctx, prefix, start, 2*(limit-len(out))+10)
		if err != nil {
			return nil, "", err
		}
		for i, item := range page.Items {
			v, err := decode(item)
			if err != nil {
				return nil, "", err
			}
			out = append(out, v)
			if len(out) == limit {
				if i == len(page.Items)-1 && page.LastEvaluatedKey == nil {
					return out, "", nil
				}
				return out, makeToken(prefix + idOf(v)), nil
			}
		}
		if page.LastEvaluatedKey == nil {
			return out, "", nil
		}
		start = page.LastEvaluatedKey
	}
	pk, _ := start[attrPK].(*types.AttributeValueMemberS)
	return out, makeToken(pk.Value), nil
}

func (s *Tenants) scan(ctx context.Context, prefix string, start map[string]types.AttributeValue, limit int) (*dynamodb.ScanOutput, error) {
	out, err := s.db.Scan(ctx, &dynamodb.ScanInput{
		TableName: s.table, ConsistentRead: aws.Bool(true), Limit: aws.Int32(int32(limit)),
		ExclusiveStartKey:         start,
		FilterExpression:          aws.String("begins_with(#pk, :prefix)"),
		ProjectionExpression:      aws.String("#pk, #doc, #ver"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#doc": attrDoc, "#ver": attrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":prefix": str(prefix)},
	})
	if err != nil {
		return nil, fmt.Errorf("tenantstore/dynamodb: list: %w", err)
	}
	if _, ok := out.LastEvaluatedKey[attrPK].(*types.AttributeValueMemberS); out.LastEvaluatedKey != nil && !ok {
		return nil, fmt.Errorf("tenantstore/dynamodb: list: LastEvaluatedKey without %s", attrPK)
	}
	return out, nil
}

// makeToken encodes the partition key a scan resumes after.
func makeToken(pk string) string { return base64.RawURLEncoding.EncodeToString([]byte(pk)) }

// parseToken decodes a page token into an ExclusiveStartKey: the key of a tenant, plan
// or key item, nothing else.
func parseToken(token string) (map[string]types.AttributeValue, error) {
	if token == "" {
		return nil, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return nil, store.ErrPageToken
	}
	pk := string(raw)
	id, isTenant := strings.CutPrefix(pk, tenantPrefix)
	plan, isPlan := strings.CutPrefix(pk, planPrefix)
	hash, isKey := strings.CutPrefix(pk, keyPrefix)
	if !(isTenant && tenant.ValidID(id)) && !(isPlan && tenant.ValidID(plan)) && !(isKey && apikey.ValidHash(hash)) {
		return nil, store.ErrPageToken
	}
	return map[string]types.AttributeValue{attrPK: str(pk)}, nil
}
