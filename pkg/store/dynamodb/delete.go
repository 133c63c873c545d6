package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

// keyState is what a tenant item says about its keys.
type keyState struct {
	version, keyrev int64
	keys            map[string]string // key id -> record JSON
	plan            string            // the plan the tenant names, "" for none
}

// readKeys reads the tenant's version, keyrev and keys with strong consistency.
func (s *Tenants) readKeys(ctx context.Context, id string) (keyState, error) {
	if !tenant.ValidID(id) {
		return keyState{}, store.ErrNotFound
	}
	item, err := s.getItem(ctx, tenantKey(id), "read keys of "+id, attrVersion, attrKeyRev, attrKeys, attrPlan)
	if err != nil {
		return keyState{}, err
	}
	return decodeKeyState(item)
}

func decodeKeyState(item map[string]types.AttributeValue) (keyState, error) {
	var st keyState
	var err error
	if st.version, err = numberAttr(item, attrVersion); err != nil {
		return keyState{}, err
	}
	if st.keyrev, err = numberAttr(item, attrKeyRev); err != nil {
		return keyState{}, err
	}
	if plan, ok := item[attrPlan].(*types.AttributeValueMemberS); ok {
		st.plan = plan.Value
	}
	m, ok := item[attrKeys].(*types.AttributeValueMemberM)
	if !ok {
		return keyState{}, errors.New("tenantstore/dynamodb: a tenant item lacks its keys map")
	}
	st.keys = make(map[string]string, len(m.Value))
	for id, v := range m.Value {
		doc, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return keyState{}, fmt.Errorf("tenantstore/dynamodb: key %s is not a string", id)
		}
		st.keys[id] = doc.Value
	}
	return st, nil
}

func numberAttr(item map[string]types.AttributeValue, name string) (int64, error) {
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("tenantstore/dynamodb: attribute %s is missing or not a number", name)
	}
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("tenantstore/dynamodb: attribute %s: %w", name, err)
	}
	return v, nil
}

// Delete removes the tenant and its key items in one transaction, conditioned on the
// version and on keyrev (so that no key added after the read survives), retried when
// the keys changed in between.
func (s *Tenants) Delete(ctx context.Context, id string, ifVersion int64) error {
	for range maxTenantAttempts {
		st, err := s.readKeys(ctx, id)
		if err != nil {
			return err
		}
		if st.version != ifVersion {
			return store.ErrVersionConflict
		}
		items, err := s.deleteItems(id, st)
		if err != nil {
			return err
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if _, canceled := cancelCodes(err); !canceled {
			if err != nil {
				return fmt.Errorf("tenantstore/dynamodb: delete %s: %w", id, err)
			}
			return nil
		}
	}
	return ErrBusy
}

func (s *Tenants) deleteItems(id string, st keyState) ([]types.TransactWriteItem, error) {
	cond, names, values := tenantCondition(st.version, st.plan)
	names["#kr"], values[":kr"] = attrKeyRev, numValue(st.keyrev)
	items := []types.TransactWriteItem{{Delete: &types.Delete{
		TableName: s.table, Key: tenantKey(id), ConditionExpression: aws.String(cond + " AND #kr = :kr"),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
	}}}
	items = append(items, s.planMoves(st.plan, "")...)
	for _, doc := range st.keys {
		rec, err := store.DecodeRecord(doc)
		if err != nil {
			return nil, err
		}
		items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: s.table, Key: keyItemKey(rec.Hash)}})
	}
	return items, nil
}

// cancelCodes returns the per-item cancellation codes of a canceled transaction
// ("None", "ConditionalCheckFailed", "TransactionConflict", ...), and whether err is
// one.
func cancelCodes(err error) ([]string, bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false
	}
	codes := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		codes[i] = aws.ToString(r.Code)
	}
	return codes, true
}
