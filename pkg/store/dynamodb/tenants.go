package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

var _ store.Tenants = (*Tenants)(nil)

// TenantsAPI is the part of *dynamodb.Client the Tenants uses.
type TenantsAPI interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Attribute names and key prefixes; see the package doc.
const (
	attrPK       = "pk"
	attrDoc      = "doc"
	attrVersion  = "version"
	attrKeys     = "keys"
	attrKeyRev   = "keyrev"
	attrTenant   = "tenant"
	tenantPrefix = "tenant#"
	keyPrefix    = "key#"
)

// maxTenantAttempts bounds the read-then-write loops that retry when another writer changed
// the tenant's keys in between (or a transaction conflicted).
const maxTenantAttempts = 10

// ErrBusy is returned when a key write or Delete lost maxTenantAttempts races in a row with
// other writes to the same tenant. Nothing was changed; the call may be retried.
var ErrBusy = errors.New("tenantstore/dynamodb: the tenant's keys kept changing; nothing was written")

// Tenants is the store.Tenants over one DynamoDB table. Create it with New. It is
// safe for concurrent use.
type Tenants struct {
	db    TenantsAPI
	table *string
}

// NewTenants returns a Tenants over table, sending requests through db (a *dynamodb.Client).
func NewTenants(db TenantsAPI, table string) *Tenants {
	return &Tenants{db: db, table: aws.String(table)}
}

func tenantKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(tenantPrefix + id)}
}

func keyItemKey(hash string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(keyPrefix + hash)}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func numValue(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// Create stores a new tenant with version 1.
func (s *Tenants) Create(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	t, doc, err := store.EncodeTenant(store.PrepareCreate(t))
	if err != nil {
		return tenant.Tenant{}, err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: s.table,
		Item: map[string]types.AttributeValue{
			attrPK: str(tenantPrefix + t.ID), attrDoc: str(string(doc)), attrVersion: numValue(1),
			attrKeyRev: numValue(0), attrKeys: &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		},
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	})
	if isConditionFailed(err) {
		return tenant.Tenant{}, store.ErrExists
	}
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/dynamodb: create %s: %w", t.ID, err)
	}
	return t, nil
}

// Get returns the tenant, read with strong consistency.
func (s *Tenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	if !tenant.ValidID(id) {
		return tenant.Tenant{}, store.ErrNotFound
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: s.table, Key: tenantKey(id), ConsistentRead: aws.Bool(true),
		ProjectionExpression:     aws.String("#doc, #ver"),
		ExpressionAttributeNames: map[string]string{"#doc": attrDoc, "#ver": attrVersion},
	})
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/dynamodb: get %s: %w", id, err)
	}
	if len(out.Item) == 0 {
		return tenant.Tenant{}, store.ErrNotFound
	}
	return decodeTenant(out.Item)
}

// decodeTenant reads a tenant item's doc and version.
func decodeTenant(item map[string]types.AttributeValue) (tenant.Tenant, error) {
	doc, okDoc := item[attrDoc].(*types.AttributeValueMemberS)
	ver, okVer := item[attrVersion].(*types.AttributeValueMemberN)
	if !okDoc || !okVer {
		return tenant.Tenant{}, errors.New("tenantstore/dynamodb: a tenant item lacks doc or version")
	}
	var t tenant.Tenant
	if err := json.Unmarshal([]byte(doc.Value), &t); err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/dynamodb: stored tenant: %w", err)
	}
	v, err := strconv.ParseInt(ver.Value, 10, 64)
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("tenantstore/dynamodb: stored version %q: %w", ver.Value, err)
	}
	t.Version = v
	return t, nil
}

// Replace stores t when the stored version is ifVersion: one conditional UpdateItem.
func (s *Tenants) Replace(ctx context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t, doc, err := store.EncodeTenant(store.PrepareReplace(t, ifVersion))
	if err != nil {
		return tenant.Tenant{}, err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: s.table, Key: tenantKey(t.ID),
		UpdateExpression:                    aws.String("SET #doc = :doc, #ver = :new"),
		ConditionExpression:                 aws.String("#ver = :if"),
		ExpressionAttributeNames:            map[string]string{"#doc": attrDoc, "#ver": attrVersion},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":doc": str(string(doc)), ":new": numValue(t.Version), ":if": numValue(ifVersion)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf) && len(ccf.Item) == 0:
		return tenant.Tenant{}, store.ErrNotFound
	case errors.As(err, &ccf):
		return tenant.Tenant{}, store.ErrVersionConflict
	case err != nil:
		return tenant.Tenant{}, fmt.Errorf("tenantstore/dynamodb: replace %s: %w", t.ID, err)
	}
	return t, nil
}

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}
