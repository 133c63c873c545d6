-- putkey.lua stores a new key record and lists it on its tenant.
-- KEYS[1] the tenant's hash, KEYS[2] the tenant's hash of keys, KEYS[3] the key record
-- ARGV[1] the key id, ARGV[2] the record JSON, ARGV[3] the most keys a tenant holds
-- Returns 1, -1 when the tenant does not exist, -2 when the hash or the key id is
-- taken, -3 when the tenant has the most keys it may.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return -1
end
if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  return -2
end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then
  return -3
end
redis.call('SET', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HINCRBY', KEYS[1], 'keyrev', 1)
return 1
