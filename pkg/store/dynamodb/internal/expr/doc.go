// Package expr writes the condition and update expressions of one DynamoDB write, with
// their attribute-name and attribute-value placeholders: what the Counters' conditional
// UpdateItem and TransactWriteItems carry.
//
// It holds the few forms those writes use (comparisons, attribute_exists,
// attribute_not_exists, AND, OR; SET, SET a = a + v, SET a = if_not_exists(a, v) + w,
// ADD, REMOVE) over numbers and maps of numbers, written as strings as they are called.
// The SDK's feature/dynamodb/expression builds the same expressions from a tree, and
// marshals values by reflection through feature/dynamodb/attributevalue, which links
// service/dynamodbstreams: 131 kB of the authorizer's linux/arm64 bootstrap, and their
// package init at every cold start, for these few forms.
//
// Every attribute name is a placeholder (#0, #1, ...; one per distinct name, so a
// reserved word is never an issue); a dot in a path separates the names of a map's
// entry ("g.17" is entry 17 of map g). Every value is a placeholder too (:0, :1, ...).
// Write leaves out the placeholders that neither expression holds.
package expr
