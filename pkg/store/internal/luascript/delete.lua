-- delete.lua deletes a tenant, its list of keys and its key records, when its version
-- is the expected one and its keys and plan have not changed since the caller read
-- them (the caller passes every key record in KEYS, as Upstash's key locking
-- requires), and takes it off its plan's users.
-- KEYS[1] the tenant's hash, KEYS[2] the sorted set of tenant ids, KEYS[3] its plan's
-- users (unused without a plan), KEYS[4] the tenant's hash of keys, KEYS[5...] the
-- tenant's key records
-- ARGV[1] the expected version, ARGV[2] the keyrev read, ARGV[3] the tenant id,
-- ARGV[4] the plan read or ''
-- Returns 1, -1 when the tenant does not exist, -2 when its version differs, -3 when
-- its keys or plan changed (read them again).
local state = redis.call('HMGET', KEYS[1], 'version', 'keyrev', 'plan')
if not state[1] then
  return -1
end
if state[1] ~= ARGV[1] then
  return -2
end
if state[2] ~= ARGV[2] or (state[3] or '') ~= ARGV[4] then
  return -3
end
if ARGV[4] ~= '' then
  redis.call('ZREM', KEYS[3], ARGV[3])
end
redis.call('DEL', unpack(KEYS, 4))
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[3])
return 1
