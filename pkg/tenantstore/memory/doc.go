// Package memory is the in-memory tenantstore.Store: for local runs, tests, the tenants
// file (EDGELIMIT_TENANTS_FILE, see LoadFile) and single-instance deployments. It keeps
// copies of what it is given and hands out copies, so callers cannot change its state
// except through its methods. List returns tenants in order of id.
package memory
