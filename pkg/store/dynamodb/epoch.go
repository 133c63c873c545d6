package dynamodb

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/store"
)

var _ store.Epoch = (*Tenants)(nil)

// The epoch marker: the item "epoch" of the tenants table (List, which reads items
// starting "tenant#", never sees it), its id in attribute "id".
const (
	epochPK     = "epoch"
	attrEpochID = "id"
)

// Epoch returns the tenants table's epoch id (store.Epoch): one strongly consistent
// GetItem, and when the marker is missing (a new table, or one deleted and created
// again) a PutItem of a new id conditional on the item not existing (another instance
// may write first) and a second GetItem.
func (s *Tenants) Epoch(ctx context.Context) (string, error) {
	id, ok, err := s.readEpoch(ctx)
	if err != nil || ok {
		return id, err
	}
	err = s.putNew(ctx, map[string]types.AttributeValue{attrPK: str(epochPK), attrEpochID: str(store.NewEpochID())})
	if err != nil && !isConditionFailed(err) {
		return "", fmt.Errorf("tenantstore/dynamodb: epoch: %w", err)
	}
	if id, ok, err = s.readEpoch(ctx); err == nil && !ok {
		err = errors.New("tenantstore/dynamodb: epoch: the marker is missing after it was written")
	}
	return id, err
}

// readEpoch reads the marker's id: ok false when there is none.
func (s *Tenants) readEpoch(ctx context.Context) (string, bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: s.table, Key: map[string]types.AttributeValue{attrPK: str(epochPK)}, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return "", false, fmt.Errorf("tenantstore/dynamodb: epoch: %w", err)
	}
	if len(out.Item) == 0 {
		return "", false, nil
	}
	id, ok := out.Item[attrEpochID].(*types.AttributeValueMemberS)
	if !ok || id.Value == "" {
		return "", false, errors.New("tenantstore/dynamodb: epoch: the marker's id is not a string")
	}
	return id.Value, true, nil
}
