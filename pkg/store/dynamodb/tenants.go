package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
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

// Tenants is the store.Tenants and store.Plans over one DynamoDB table. Create it with New. It is
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

// newItem is the Put of item into table, conditioned on no item of its key existing.
func newItem(table *string, item map[string]types.AttributeValue) *types.Put {
	return &types.Put{TableName: table, Item: item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	}
}

// putNew puts item unless an item of its key exists: then the error is a
// *types.ConditionalCheckFailedException (isConditionFailed).
func (s *Tenants) putNew(ctx context.Context, item map[string]types.AttributeValue) error {
	p := newItem(s.table, item)
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: p.TableName, Item: p.Item,
		ConditionExpression: p.ConditionExpression, ExpressionAttributeNames: p.ExpressionAttributeNames})
	return err
}

// Create stores a new tenant with version 1: one conditional PutItem, in one
// transaction with the join of its plan when it names one.
func (s *Tenants) Create(ctx context.Context, t tenant.Tenant) (tenant.Tenant, error) {
	t, doc, err := store.EncodeTenant(store.PrepareCreate(t))
	if err != nil {
		return tenant.Tenant{}, err
	}
	item := map[string]types.AttributeValue{
		attrPK: str(tenantPrefix + t.ID), attrDoc: str(string(doc)), attrVersion: numValue(1),
		attrKeyRev: numValue(0), attrKeys: &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
	}
	if t.Plan == "" {
		err = s.putNew(ctx, item)
	} else {
		item[attrPlan] = str(t.Plan)
		items := append([]types.TransactWriteItem{{Put: newItem(s.table, item)}}, s.planMoves("", t.Plan)...)
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	}
	codes, _ := cancelCodes(err)
	switch {
	case isConditionFailed(err) || len(codes) > 0 && codes[0] == conditionFailed:
		return tenant.Tenant{}, store.ErrExists
	case joinFailed(codes, t.Plan):
		return tenant.Tenant{}, tenant.UnknownPlan(t.Plan)
	case err != nil:
		return tenant.Tenant{}, fmt.Errorf("tenantstore/dynamodb: create %s: %w", t.ID, err)
	}
	return t, nil
}

// Get returns the tenant, read with strong consistency.
func (s *Tenants) Get(ctx context.Context, id string) (tenant.Tenant, error) {
	if !tenant.ValidID(id) {
		return tenant.Tenant{}, store.ErrNotFound
	}
	item, err := s.getItem(ctx, tenantKey(id), "get "+id, attrDoc, attrVersion)
	if err != nil {
		return tenant.Tenant{}, err
	}
	return decodeTenant(item)
}

// getItem reads the attributes attrs of the item key with strong consistency:
// ErrNotFound when there is none (or it has none of them); what names the read in
// errors.
func (s *Tenants) getItem(ctx context.Context, key map[string]types.AttributeValue, what string, attrs ...string) (map[string]types.AttributeValue, error) {
	names := make(map[string]string, len(attrs))
	refs := make([]string, len(attrs))
	for i, a := range attrs {
		refs[i] = "#" + a
		names[refs[i]] = a
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: s.table, Key: key, ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String(strings.Join(refs, ", ")), ExpressionAttributeNames: names,
	})
	if err != nil {
		return nil, fmt.Errorf("tenantstore/dynamodb: %s: %w", what, err)
	}
	if len(out.Item) == 0 {
		return nil, store.ErrNotFound
	}
	return out.Item, nil
}

// decodeTenant reads a tenant item's doc and version.
func decodeTenant(item map[string]types.AttributeValue) (tenant.Tenant, error) {
	return decodeItem[tenant.Tenant](item, "tenant", func(t *tenant.Tenant, v int64) { t.Version = v })
}

// decodeItem reads the doc and version of an item of kind what (tenant or plan).
func decodeItem[T any](item map[string]types.AttributeValue, what string, setVersion func(*T, int64)) (T, error) {
	var v, zero T
	doc, ok := item[attrDoc].(*types.AttributeValueMemberS)
	if !ok {
		return zero, fmt.Errorf("tenantstore/dynamodb: a %s item lacks its doc", what)
	}
	n, err := numberAttr(item, attrVersion)
	if err != nil {
		return zero, err
	}
	if err := json.Unmarshal([]byte(doc.Value), &v); err != nil {
		return zero, fmt.Errorf("tenantstore/dynamodb: stored %s: %w", what, err)
	}
	setVersion(&v, n)
	return v, nil
}

// errRetry means the tenant's plan changed since it was read: read it again.
var errRetry = errors.New("tenantstore/dynamodb: the tenant changed since it was read")

// Replace stores t when the stored version is ifVersion: it reads the plan the tenant
// is on, then writes conditioned on the version and that plan, in one transaction
// with the plans' users when t changes plan.
func (s *Tenants) Replace(ctx context.Context, t tenant.Tenant, ifVersion int64) (tenant.Tenant, error) {
	t, doc, err := store.EncodeTenant(store.PrepareReplace(t, ifVersion))
	if err != nil {
		return tenant.Tenant{}, err
	}
	for range maxTenantAttempts {
		st, err := s.readKeys(ctx, t.ID)
		switch {
		case err != nil:
			return tenant.Tenant{}, err
		case st.version != ifVersion:
			return tenant.Tenant{}, store.ErrVersionConflict
		}
		err = s.replaceOn(ctx, t, string(doc), ifVersion, st.plan)
		if err == nil {
			return t, nil
		}
		if err != errRetry {
			return tenant.Tenant{}, err
		}
	}
	return tenant.Tenant{}, ErrBusy
}

// replaceOn writes t, conditioned on the stored version ifVersion and plan from.
func (s *Tenants) replaceOn(ctx context.Context, t tenant.Tenant, doc string, ifVersion int64, from string) error {
	cond, names, values := tenantCondition(ifVersion, from)
	names["#doc"] = attrDoc
	values[":doc"], values[":new"] = str(doc), numValue(t.Version)
	update := "SET #doc = :doc, #ver = :new REMOVE #plan"
	if t.Plan != "" {
		update, values[":plan"] = "SET #doc = :doc, #ver = :new, #plan = :plan", str(t.Plan)
	}
	u := &types.Update{TableName: s.table, Key: tenantKey(t.ID), UpdateExpression: aws.String(update),
		ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values}
	items := append([]types.TransactWriteItem{{Update: u}}, s.planMoves(from, t.Plan)...)
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	codes, canceled := cancelCodes(err)
	switch {
	case joinFailed(codes, t.Plan) && from != t.Plan:
		return tenant.UnknownPlan(t.Plan)
	case canceled:
		return errRetry // the tenant changed, or a transaction conflicted: read again
	case err != nil:
		return fmt.Errorf("tenantstore/dynamodb: replace %s: %w", t.ID, err)
	}
	return nil
}

// tenantCondition is the condition of a write of a tenant read at version on plan
// ("" for none), with its names and values.
func tenantCondition(version int64, plan string) (string, map[string]string, map[string]types.AttributeValue) {
	names := map[string]string{"#ver": attrVersion, "#plan": attrPlan}
	values := map[string]types.AttributeValue{":if": numValue(version)}
	if plan == "" {
		return "#ver = :if AND attribute_not_exists(#plan)", names, values
	}
	values[":from"] = str(plan)
	return "#ver = :if AND #plan = :from", names, values
}

func isConditionFailed(err error) bool {
	return errors.As(err, new(*types.ConditionalCheckFailedException))
}
