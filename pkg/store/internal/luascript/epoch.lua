-- epoch.lua writes the store's epoch marker, unless it exists.
-- KEYS[1] the marker, ARGV[1] a new epoch id
-- Returns 1 when it wrote the marker, 0 when one was there.
return redis.call('SETNX', KEYS[1], ARGV[1])
