-- deleteplan.lua deletes a plan when its version is the expected one and no tenant
-- names it: create.lua and replace.lua list a tenant among its plan's users in the
-- same script that checks the plan exists, so no tenant can come to name a deleted
-- plan.
-- KEYS[1] the plan's hash, KEYS[2] the sorted set of plan ids, KEYS[3] its users
-- ARGV[1] the expected version, ARGV[2] the plan id
-- Returns 1, -1 when the plan does not exist, -2 when its version differs, -5 when a
-- tenant names it (the first of KEYS[3] is one).
local version = redis.call('HGET', KEYS[1], 'version')
if not version then
  return -1
end
if version ~= ARGV[1] then
  return -2
end
if redis.call('ZCARD', KEYS[3]) > 0 then
  return -5
end
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
