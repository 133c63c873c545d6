package dynamodb

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/edgelimit/edgelimit/pkg/store"
	"github.com/edgelimit/edgelimit/pkg/tenant"
)

var _ store.Plans = (*Tenants)(nil)

// A plan is an item of its own kind in the tenants table, "plan#<id>": its doc, its
// version, and users, the number of tenants that name it. A tenant item's attribute
// plan names its plan. Every tenant write that joins or leaves a plan is one
// transaction with an Update of the plan's users (conditioned on the plan existing,
// to join it), and DeletePlan is conditioned on users = 0: no tenant can come to name
// a plan that is gone.
const (
	attrPlan   = "plan"
	attrUsers  = "users"
	planPrefix = "plan#"
)

func planKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(planPrefix + id)}
}

// CreatePlan stores a new plan with version 1 and no users.
func (s *Tenants) CreatePlan(ctx context.Context, p tenant.Plan) (tenant.Plan, error) {
	p, doc, err := store.EncodePlan(store.PreparePlan(p, 0))
	if err != nil {
		return tenant.Plan{}, err
	}
	err = s.putNew(ctx, map[string]types.AttributeValue{
		attrPK: str(planPrefix + p.ID), attrDoc: str(string(doc)), attrVersion: numValue(1), attrUsers: numValue(0),
	})
	if isConditionFailed(err) {
		return tenant.Plan{}, store.ErrExists
	}
	if err != nil {
		return tenant.Plan{}, fmt.Errorf("tenantstore/dynamodb: create plan %s: %w", p.ID, err)
	}
	return p, nil
}

// GetPlan returns the plan, read with strong consistency.
func (s *Tenants) GetPlan(ctx context.Context, id string) (tenant.Plan, error) {
	if !tenant.ValidID(id) {
		return tenant.Plan{}, store.ErrNotFound
	}
	item, err := s.getItem(ctx, planKey(id), "get plan "+id, attrDoc, attrVersion)
	if err != nil {
		return tenant.Plan{}, err
	}
	return decodePlan(item)
}

// ReplacePlan stores p when the stored version is ifVersion: one conditional
// UpdateItem, which leaves users as they are.
func (s *Tenants) ReplacePlan(ctx context.Context, p tenant.Plan, ifVersion int64) (tenant.Plan, error) {
	p, doc, err := store.EncodePlan(store.PreparePlan(p, ifVersion))
	if err != nil {
		return tenant.Plan{}, err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: s.table, Key: planKey(p.ID),
		UpdateExpression:                    aws.String("SET #doc = :doc, #ver = :new"),
		ConditionExpression:                 aws.String("#ver = :if"),
		ExpressionAttributeNames:            map[string]string{"#doc": attrDoc, "#ver": attrVersion},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":doc": str(string(doc)), ":new": numValue(p.Version), ":if": numValue(ifVersion)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf) && len(ccf.Item) == 0:
		return tenant.Plan{}, store.ErrNotFound
	case errors.As(err, &ccf):
		return tenant.Plan{}, store.ErrVersionConflict
	case err != nil:
		return tenant.Plan{}, fmt.Errorf("tenantstore/dynamodb: replace plan %s: %w", p.ID, err)
	}
	return p, nil
}

// DeletePlan removes the plan when the stored version is ifVersion and it has no
// users; a plan in use is answered with one of its tenants, found by a scan.
func (s *Tenants) DeletePlan(ctx context.Context, id string, ifVersion int64) error {
	if !tenant.ValidID(id) {
		return store.ErrNotFound
	}
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: s.table, Key: planKey(id),
		ConditionExpression:                 aws.String("#ver = :if AND #users = :zero"),
		ExpressionAttributeNames:            map[string]string{"#ver": attrVersion, "#users": attrUsers},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":if": numValue(ifVersion), ":zero": numValue(0)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case errors.As(err, &ccf) && len(ccf.Item) == 0:
		return store.ErrNotFound
	case errors.As(err, &ccf):
		if v, verr := numberAttr(ccf.Item, attrVersion); verr != nil || v != ifVersion {
			return store.ErrVersionConflict
		}
		return s.inUse(ctx, id)
	case err != nil:
		return fmt.Errorf("tenantstore/dynamodb: delete plan %s: %w", id, err)
	}
	return nil
}

// inUse returns the PlanInUseError of plan id, naming the first tenant a scan finds on
// it (none when the scan ends first: the tenants may be leaving it).
func (s *Tenants) inUse(ctx context.Context, id string) error {
	e := &store.PlanInUseError{Plan: id}
	var start map[string]types.AttributeValue
	for range maxScans {
		page, err := s.db.Scan(ctx, &dynamodb.ScanInput{
			TableName: s.table, ConsistentRead: aws.Bool(true), ExclusiveStartKey: start,
			FilterExpression:          aws.String("#plan = :plan"),
			ProjectionExpression:      aws.String("#pk"),
			ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#plan": attrPlan},
			ExpressionAttributeValues: map[string]types.AttributeValue{":plan": str(id)},
		})
		if err != nil {
			return fmt.Errorf("tenantstore/dynamodb: delete plan %s: find a tenant on it: %w", id, err)
		}
		for _, item := range page.Items {
			if pk, ok := item[attrPK].(*types.AttributeValueMemberS); ok && len(pk.Value) > len(tenantPrefix) {
				e.Tenant = pk.Value[len(tenantPrefix):]
				return e
			}
		}
		if start = page.LastEvaluatedKey; start == nil {
			break
		}
	}
	return e
}

// ListPlans scans the table for plan items, as List does for tenants.
func (s *Tenants) ListPlans(ctx context.Context, limit int, pageToken string) ([]tenant.Plan, string, error) {
	return list(s, ctx, planPrefix, limit, pageToken, decodePlan, func(p tenant.Plan) string { return p.ID })
}

// decodePlan reads a plan item's doc and version.
func decodePlan(item map[string]types.AttributeValue) (tenant.Plan, error) {
	return decodeItem[tenant.Plan](item, "plan", func(p *tenant.Plan, v int64) { p.Version = v })
}

// joinPlan is the transaction item that adds delta (1 or -1) to plan's users; joining
// is conditioned on the plan existing.
func (s *Tenants) joinPlan(plan string, delta int64) types.TransactWriteItem {
	u := &types.Update{
		TableName: s.table, Key: planKey(plan),
		UpdateExpression:          aws.String("ADD #users :d"),
		ExpressionAttributeNames:  map[string]string{"#users": attrUsers},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": numValue(delta)},
	}
	if delta > 0 {
		u.ConditionExpression = aws.String("attribute_exists(#pk)")
		u.ExpressionAttributeNames["#pk"] = attrPK
	}
	return types.TransactWriteItem{Update: u}
}

// planMoves returns the transaction items that move a tenant from plan from to plan
// to ("" for none): none when they are the same.
func (s *Tenants) planMoves(from, to string) []types.TransactWriteItem {
	var items []types.TransactWriteItem
	if from == to {
		return nil
	}
	if to != "" {
		items = append(items, s.joinPlan(to, 1))
	}
	if from != "" {
		items = append(items, s.joinPlan(from, -1))
	}
	return items
}

// joinFailed reports whether a canceled transaction whose items after the first are
// moves (planMoves(from, to)) failed on joining to: the plan does not exist.
func joinFailed(codes []string, to string) bool {
	return to != "" && len(codes) > 1 && codes[1] == conditionFailed && codes[0] != conditionFailed
}
