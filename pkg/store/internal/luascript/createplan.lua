-- createplan.lua stores a new plan at version 1, unless its id is taken.
-- KEYS[1] the plan's hash, KEYS[2] the sorted set of plan ids
-- ARGV[1] the plan JSON, ARGV[2] the plan id
-- Returns 1, or 0 when the plan exists.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'doc', ARGV[1], 'version', '1')
redis.call('ZADD', KEYS[2], 0, ARGV[2])
return 1
