-- replace.lua stores a tenant's new JSON when its version is the expected one, moving
-- it from the plan it named to the plan it names, which must exist.
-- Versions are compared as the decimal strings they are stored as: no Lua numbers.
-- KEYS[1] the tenant's hash, KEYS[2] the new plan's hash, KEYS[3] the new plan's users,
-- KEYS[4] the old plan's users (plan keys unused for no plan)
-- ARGV[1] the expected version, ARGV[2] the new version, ARGV[3] the tenant JSON,
-- ARGV[4] the plan the caller read it on or '', ARGV[5] the new plan or '',
-- ARGV[6] the tenant id
-- Returns 1, -1 when the tenant does not exist, -2 when its version differs, -3 when
-- its plan is not the one read (read it again), -4 when the new plan does not exist.
local state = redis.call('HMGET', KEYS[1], 'version', 'plan')
if not state[1] then
  return -1
end
if state[1] ~= ARGV[1] then
  return -2
end
if (state[2] or '') ~= ARGV[4] then
  return -3
end
if ARGV[5] ~= '' and redis.call('EXISTS', KEYS[2]) == 0 then
  return -4
end
redis.call('HSET', KEYS[1], 'doc', ARGV[3], 'version', ARGV[2], 'plan', ARGV[5])
if ARGV[4] ~= ARGV[5] then
  if ARGV[4] ~= '' then
    redis.call('ZREM', KEYS[4], ARGV[6])
  end
  if ARGV[5] ~= '' then
    redis.call('ZADD', KEYS[3], 0, ARGV[6])
  end
end
return 1
