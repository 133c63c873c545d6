package dynamodb

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/tenantstore"
)

const conditionFailed = "ConditionalCheckFailed"

// PutKey stores the key item and lists it on the tenant item in one transaction.
func (s *Store) PutKey(ctx context.Context, rec apikey.Record) error {
	if err := tenantstore.CheckRecord(rec); err != nil {
		return err
	}
	doc, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: s.table,
			Item: map[string]types.AttributeValue{
				attrPK: str(keyPrefix + rec.Hash), attrDoc: str(string(doc)), attrTenant: str(rec.TenantID),
			},
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": attrPK},
		}},
		{Update: &types.Update{
			TableName: s.table, Key: tenantKey(rec.TenantID),
			UpdateExpression:          aws.String("SET #keys.#kid = :rec ADD #kr :one"),
			ConditionExpression:       aws.String("attribute_exists(#pk) AND attribute_not_exists(#keys.#kid) AND size(#keys) < :max"),
			ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#keys": attrKeys, "#kid": rec.KeyID, "#kr": attrKeyRev},
			ExpressionAttributeValues: map[string]types.AttributeValue{":rec": str(string(doc)), ":one": num(1), ":max": num(tenantstore.MaxKeysPerTenant)},
		}},
	}
	for range maxAttempts {
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		codes, canceled := cancelCodes(err)
		switch {
		case !canceled && err != nil:
			return fmt.Errorf("tenantstore/dynamodb: put key %s: %w", rec.KeyID, err)
		case !canceled:
			return nil
		case len(codes) == 2 && codes[0] == conditionFailed:
			return tenantstore.ErrExists
		case len(codes) == 2 && codes[1] == conditionFailed:
			if err := s.whyNotPut(ctx, rec); err != nil {
				return err
			}
		}
		// A conflict with another transaction, or a condition that no longer fails.
	}
	return ErrBusy
}

// whyNotPut reads the tenant item to tell which condition of PutKey failed. It returns
// nil when none fails any more: the put is worth retrying.
func (s *Store) whyNotPut(ctx context.Context, rec apikey.Record) error {
	st, err := s.readKeys(ctx, rec.TenantID)
	switch {
	case err != nil:
		return err
	case st.keys[rec.KeyID] != "":
		return tenantstore.ErrExists
	case len(st.keys) >= tenantstore.MaxKeysPerTenant:
		return tenantstore.ErrTooManyKeys
	}
	return nil
}

// LookupKey reads the key item by hash with strong consistency.
func (s *Store) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	if !apikey.ValidHash(hash) {
		return apikey.Record{}, tenantstore.ErrNotFound
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: s.table, Key: keyItemKey(hash), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("#doc"), ExpressionAttributeNames: map[string]string{"#doc": attrDoc},
	})
	if err != nil {
		return apikey.Record{}, fmt.Errorf("tenantstore/dynamodb: lookup key: %w", err)
	}
	doc, ok := out.Item[attrDoc].(*types.AttributeValueMemberS)
	if !ok {
		return apikey.Record{}, tenantstore.ErrNotFound
	}
	rec, err := tenantstore.DecodeRecord(doc.Value)
	if err != nil {
		return apikey.Record{}, err
	}
	return tenantstore.FinishLookup(rec, hash)
}

// ListKeys reads the tenant item's keys map.
func (s *Store) ListKeys(ctx context.Context, tenantID string) ([]apikey.Record, error) {
	st, err := s.readKeys(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return tenantstore.DecodeRecords(st.keys)
}

// RevokeKey rewrites the record on the tenant item and the key item in one transaction,
// conditioned on the record the read found.
func (s *Store) RevokeKey(ctx context.Context, tenantID, keyID string, at int64) error {
	return s.changeKey(ctx, tenantID, keyID, func(rec apikey.Record, old string) ([]types.TransactWriteItem, error) {
		if rec.Revoked {
			return nil, nil
		}
		doc, err := json.Marshal(rec.Revoke(at))
		if err != nil {
			return nil, err
		}
		return []types.TransactWriteItem{
			{Update: &types.Update{
				TableName: s.table, Key: tenantKey(tenantID),
				UpdateExpression:          aws.String("SET #keys.#kid = :new"),
				ConditionExpression:       aws.String("#keys.#kid = :old"),
				ExpressionAttributeNames:  map[string]string{"#keys": attrKeys, "#kid": keyID},
				ExpressionAttributeValues: map[string]types.AttributeValue{":new": str(string(doc)), ":old": str(old)},
			}},
			{Update: &types.Update{
				TableName: s.table, Key: keyItemKey(rec.Hash),
				UpdateExpression:          aws.String("SET #doc = :new"),
				ConditionExpression:       aws.String("attribute_exists(#pk)"),
				ExpressionAttributeNames:  map[string]string{"#doc": attrDoc, "#pk": attrPK},
				ExpressionAttributeValues: map[string]types.AttributeValue{":new": str(string(doc))},
			}},
		}, nil
	})
}

// DeleteKey removes the record from the tenant item and deletes the key item in one
// transaction.
func (s *Store) DeleteKey(ctx context.Context, tenantID, keyID string) error {
	return s.changeKey(ctx, tenantID, keyID, func(rec apikey.Record, old string) ([]types.TransactWriteItem, error) {
		return []types.TransactWriteItem{
			{Update: &types.Update{
				TableName: s.table, Key: tenantKey(tenantID),
				UpdateExpression:          aws.String("REMOVE #keys.#kid ADD #kr :one"),
				ConditionExpression:       aws.String("#keys.#kid = :old"),
				ExpressionAttributeNames:  map[string]string{"#keys": attrKeys, "#kid": keyID, "#kr": attrKeyRev},
				ExpressionAttributeValues: map[string]types.AttributeValue{":old": str(old), ":one": num(1)},
			}},
			{Delete: &types.Delete{TableName: s.table, Key: keyItemKey(rec.Hash)}},
		}, nil
	})
}

// changeKey reads the tenant's record of keyID, asks plan for the transaction that
// changes it (none: nothing to do) and runs it, reading again when the record changed
// in between.
func (s *Store) changeKey(ctx context.Context, tenantID, keyID string, plan func(rec apikey.Record, old string) ([]types.TransactWriteItem, error)) error {
	if !apikey.ValidKeyID(keyID) {
		return tenantstore.ErrNotFound
	}
	for range maxAttempts {
		st, err := s.readKeys(ctx, tenantID)
		if err != nil {
			return err
		}
		old, ok := st.keys[keyID]
		if !ok {
			return tenantstore.ErrNotFound
		}
		rec, err := tenantstore.DecodeRecord(old)
		if err != nil {
			return err
		}
		items, err := plan(rec, old)
		if err != nil || items == nil {
			return err
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if _, canceled := cancelCodes(err); !canceled {
			if err != nil {
				return fmt.Errorf("tenantstore/dynamodb: change key %s: %w", keyID, err)
			}
			return nil
		}
	}
	return ErrBusy
}
