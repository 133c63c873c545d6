-- create.lua stores a new tenant at version 1, unless its id is taken or it names a
-- plan that does not exist; a tenant on a plan is listed among the plan's users.
-- KEYS[1] the tenant's hash, KEYS[2] the sorted set of tenant ids, KEYS[3] the plan's
-- hash, KEYS[4] the plan's sorted set of users (both unused without a plan)
-- ARGV[1] the tenant JSON, ARGV[2] the tenant id, ARGV[3] the plan id or ''
-- Returns 1, 0 when the tenant exists, -4 when the plan does not.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
if ARGV[3] ~= '' then
  if redis.call('EXISTS', KEYS[3]) == 0 then
    return -4
  end
  redis.call('ZADD', KEYS[4], 0, ARGV[2])
end
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'version', '1', 'keyrev', '0', 'plan', ARGV[3])
redis.call('ZADD', KEYS[2], 0, ARGV[2])
return 1
