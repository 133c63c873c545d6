-- changekey.lua rewrites or deletes a key record, when it is still the one the caller
-- read.
-- KEYS[1] the tenant's hash, KEYS[2] the tenant's hash of keys, KEYS[3] the key record
-- ARGV[1] the key id, ARGV[2] the record JSON read, ARGV[3] the new record JSON, or ""
-- to delete the record
-- Returns 1, -1 when the tenant has no such key, -3 when the record changed (read it
-- again).
local current = redis.call('HGET', KEYS[2], ARGV[1])
if not current then
  return -1
end
if current ~= ARGV[2] then
  return -3
end
if ARGV[3] == '' then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('DEL', KEYS[3])
  redis.call('HINCRBY', KEYS[1], 'keyrev', 1)
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
  redis.call('SET', KEYS[3], ARGV[3])
end
return 1
