-- create.lua stores a new tenant at version 1, unless its id is taken.
-- KEYS[1] the tenant's hash, KEYS[2] the sorted set of tenant ids
-- ARGV[1] the tenant JSON, ARGV[2] the tenant id
-- Returns 1, or 0 when the tenant exists.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'version', '1', 'keyrev', '0')
redis.call('ZADD', KEYS[2], 0, ARGV[2])
return 1
