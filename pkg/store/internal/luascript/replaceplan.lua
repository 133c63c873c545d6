-- replaceplan.lua stores a plan's new JSON when its version is the expected one.
-- Versions are compared as the decimal strings they are stored as: no Lua numbers.
-- KEYS[1] the plan's hash
-- ARGV[1] the expected version, ARGV[2] the new version, ARGV[3] the plan JSON
-- Returns 1, -1 when the plan does not exist, -2 when its version differs.
local version = redis.call('HGET', KEYS[1], 'version')
if not version then
  return -1
end
if version ~= ARGV[1] then
  return -2
end
redis.call('HSET', KEYS[1], 'doc', ARGV[3], 'version', ARGV[2])
return 1
