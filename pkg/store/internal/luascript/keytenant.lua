#!lua flags=no-writes
-- keytenant.lua reads a key record and its tenant: what LookupKey then Get read, in
-- one round trip, for a key the gate has not cached.
--
-- The tenant's hash is a key this script cannot declare: its name comes from the
-- record. Hence the first line, without allow-key-locking (the client adds that flag
-- only to a script without a first line of its own): Upstash runs the script under its
-- global script lock; Redis Cluster finds the hash in the record's slot (both carry the
-- prefix's hash tag). It writes nothing (no-writes).
--
-- KEYS[1] the key record
-- ARGV[1] the name of a tenant's hash without the id (Layout.Tenant(""))
-- Returns {} when there is no record; {record} when the record holds no tenant id this
-- script can read (the caller then reads the tenant apart); else {record, tenant id,
-- doc, version}, doc and version "" when the tenant's hash does not exist (not nil:
-- Redis would answer a RESP3 client a boolean for Lua's false).
local rec = redis.call('GET', KEYS[1])
if not rec then
  return {}
end
-- json.Marshal writes the field so, and tenant ids need no escapes (tenant.ValidID).
local id = string.match(rec, '"tenant_id":"([a-z0-9_%-]+)"')
if not id then
  return {rec}
end
local t = redis.call('HMGET', ARGV[1] .. id, 'doc', 'version')
return {rec, id, t[1] or '', t[2] or ''}
