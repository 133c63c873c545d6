package dynamodb

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/apikey"
	"github.com/edgelimit/edgelimit/pkg/store"
)

const conditionFailed = "ConditionalCheckFailed"

// PutKey stores the key item and lists it on the tenant item in one transaction.
func (s *Tenants) PutKey(ctx context.Context, rec apikey.Record) error {
	if err := store.CheckRecord(rec); err != nil {
		return err
	}
	doc, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{
		{Put: newItem(s.table, map[string]types.AttributeValue{
			attrPK: str(keyPrefix + rec.Hash), attrDoc: str(string(doc)), attrTenant: str(rec.TenantID),
		})},
		{Update: &types.Update{
			TableName: s.table, Key: tenantKey(rec.TenantID),
			UpdateExpression:          aws.String("SET #keys.#kid = :rec ADD #kr :one"),
			ConditionExpression:       aws.String("attribute_exists(#pk) AND attribute_not_exists(#keys.#kid) AND size(#keys) < :max"),
			ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#keys": attrKeys, "#kid": rec.KeyID, "#kr": attrKeyRev},
			ExpressionAttributeValues: map[string]types.AttributeValue{":rec": str(string(doc)), ":one": numValue(1), ":max": numValue(store.MaxKeysPerTenant)},
		}},
	}
	for range maxTenantAttempts {
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		codes, canceled := cancelCodes(err)
		switch {
		case !canceled && err != nil:
			return fmt.Errorf("tenantstore/dynamodb: put key %s: %w", rec.KeyID, err)
		case !canceled:
			return nil
		case len(codes) == 2 && codes[0] == conditionFailed:
			return store.ErrExists
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
func (s *Tenants) whyNotPut(ctx context.Context, rec apikey.Record) error {
	st, err := s.readKeys(ctx, rec.TenantID)
	switch {
	case err != nil:
		return err
	case st.keys[rec.KeyID] != "":
		return store.ErrExists
	case len(st.keys) >= store.MaxKeysPerTenant:
		return store.ErrTooManyKeys
	}
	return nil
}

// LookupKey reads the key item by hash with strong consistency.
func (s *Tenants) LookupKey(ctx context.Context, hash string) (apikey.Record, error) {
	if !apikey.ValidHash(hash) {
		return apikey.Record{}, store.ErrNotFound
	}
	item, err := s.getItem(ctx, keyItemKey(hash), "lookup key", attrDoc)
	if err != nil {
		return apikey.Record{}, err
	}
	doc, ok := item[attrDoc].(*types.AttributeValueMemberS)
	if !ok {
		return apikey.Record{}, store.ErrNotFound
	}
	return store.DecodeLookup(doc.Value, hash)
}

// ListKeys reads the tenant item's keys map.
func (s *Tenants) ListKeys(ctx context.Context, tenantID string) ([]apikey.Record, error) {
	st, err := s.readKeys(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return store.DecodeRecords(st.keys)
}

// RevokeKey rewrites the record on the tenant item and the key item in one transaction,
// conditioned on the record the read found.
func (s *Tenants) RevokeKey(ctx context.Context, tenantID, keyID string, at int64) error {
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
func (s *Tenants) DeleteKey(ctx context.Context, tenantID, keyID string) error {
	return s.changeKey(ctx, tenantID, keyID, func(rec apikey.Record, old string) ([]types.TransactWriteItem, error) {
		return []types.TransactWriteItem{
			{Update: &types.Update{
				TableName: s.table, Key: tenantKey(tenantID),
				UpdateExpression:          aws.String("REMOVE #keys.#kid ADD #kr :one"),
				ConditionExpression:       aws.String("#keys.#kid = :old"),
				ExpressionAttributeNames:  map[string]string{"#keys": attrKeys, "#kid": keyID, "#kr": attrKeyRev},
				ExpressionAttributeValues: map[string]types.AttributeValue{":old": str(old), ":one": numValue(1)},
			}},
			{Delete: &types.Delete{TableName: s.table, Key: keyItemKey(rec.Hash)}},
		}, nil
	})
}

// changeKey reads the tenant's record of keyID, asks plan for the transaction that
// changes it (none: nothing to do) and runs it, reading again when the record changed
// in between.
func (s *Tenants) changeKey(ctx context.Context, tenantID, keyID string, plan func(rec apikey.Record, old string) ([]types.TransactWriteItem, error)) error {
	if !apikey.ValidKeyID(keyID) {
		return store.ErrNotFound
	}
	for range maxTenantAttempts {
		st, err := s.readKeys(ctx, tenantID)
		if err != nil {
			return err
		}
		rec, old, err := store.FindRecord(st.keys, keyID)
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
