-- edgelimit: settle one reservation over its counters, at most once per id, in one
-- atomic step; it restates limiter.Set.Settle. This text is not a script of its own:
-- SettleScript runs it after decide.lua's functions (decide.lua up to "The decision."),
-- which have read every counter's rules and fields from KEYS and ARGV as decide.lua
-- lays them out, at the settle's instant (ARGV[1]; cost 1 and mode "0", unused).
--
-- KEYS    decide.lua's, then the settlement's idempotency marker, in the hash slot of
--         the first counter's hash
-- ARGV    decide.lua's, then: the reserving decision's instant; delta, the actual cost
--         minus the reserved one; the marker's TTL in milliseconds
-- Returns 1 when the settlement applied, 0 when its marker was already set (nothing
-- is written then).
--
-- Numbers: delta is at most 10^12 either way. A bucket's delta x r goes through muldiv
-- (r < limit); delta x q is exact while the TAT it moves stays below 2^53 microseconds
-- (past the year 2255: the bucket is then denied until past limiter.MaxTime anyway,
-- and a refund that large is clamped to a full bucket).

local reservedAt, delta = tonumber(ARGV[o + 1]), tonumber(ARGV[o + 2])
if not redis.call('SET', KEYS[#KEYS], '1', 'NX', 'PX', ARGV[o + 3]) then return 0 end
cost = delta -- write (decide.lua) adds cost to a sliding log: a charge is consumed so

local function min(a, b) if a < b then return a end return b end

-- The first entry of the sorted set zkey scored at or after lo that holds a cost (a
-- slot): its member, score (as written) and count; nil when there is none.
local function firstHolding(zkey, lo)
  local offset = 0
  while true do
    local batch = redis.call('ZRANGEBYSCORE', zkey, str(lo), '+inf', 'LIMIT', offset, 256)
    if #batch == 0 then return nil end
    for _, m in ipairs(batch) do
      local t, n = string.match(m, '^(%d+):(%d+)$')
      if tonumber(n) > 0 then return m, t, tonumber(n) end
    end
    offset = offset + #batch
  end
end

-- Take k from the entry m (score t, count n) of zkey, and from the rule's count.
local function takeFrom(r, zkey, m, t, n, k)
  redis.call('ZREM', zkey, m)
  redis.call('ZADD', zkey, t, t .. ':' .. str(n - k))
  r.set = {c = r.c - k}
end

-- A charge of delta > 0, consumed at now whatever the rule's state (it may leave a
-- debt), by algorithm code.
local function chargeBucket(r)
  local at = max(now, r.l)
  local tat, frac = r.t, r.f
  if tat < at then tat, frac = at, 0 end
  local carry, nf = muldiv(r.p2, delta, frac, r.limit) -- delta x r may pass 2^53
  local t = tat + delta * r.p1 + carry
  -- limiter.MaxDebtTAT: a debt stops there. It is below 2^53, so the comparison is
  -- exact even where the sum is not.
  if t >= 7573478400000000 then t, nf = 7573478400000000, 0 end
  r.set = {t = t, f = nf, l = at}
end
local charge = {
  function(r)
    local start, finish, count = fixedWindow(r)
    r.set = {s = start, e = finish, c = count + delta}
  end,
  function(r)
    local at, ws, prev, curr = slidingCounts(r)
    r.set = {s = ws, p = prev, c = curr + delta, l = at}
  end,
  function(r)
    local zkey, at, newest, cutoff, expiredCost = logLive(r)
    r.push = {zkey = zkey, at = at, cutoff = cutoff, newest = newest, expiredCost = expiredCost}
  end,
  chargeBucket, chargeBucket,
}

-- A refund of n > 0, only into the window that held the reservation, never more than
-- it holds, by algorithm code.
local function refundBucket(r, n)
  local at = max(now, r.l)
  if r.t < at or (r.t == at and r.f == 0) then return end -- full
  local back, rem = muldiv(r.p2, n, 0, r.limit) -- n x r, in whole microseconds and 1/limit
  local us, frac = r.t - n * r.p1 - back, r.f - rem
  if frac < 0 then us, frac = us - 1, frac + r.limit end
  if us < at then us, frac = at, 0 end -- a bucket is never fuller than full
  r.set = {t = us, f = frac}
end
local refund = {
  function(r, n)
    local start, finish, count = fixedWindow(r)
    if count > 0 and r.s == start and reservedAt >= start and reservedAt < finish then
      r.set = {c = count - min(n, count)}
    end
  end,
  function(r, n)
    local _, ws, _, curr = slidingCounts(r)
    if curr > 0 and r.s == ws and reservedAt - reservedAt % r.period == ws then
      r.set = {c = curr - min(n, curr)}
    end
  end,
  function(r, n) -- from the first live entry at or after the reservation
    local zkey, _, _, cutoff = logLive(r)
    local m, t, held = firstHolding(zkey, max(cutoff + 1, reservedAt))
    if m then takeFrom(r, zkey, m, t, held, min(n, held)) end
  end,
  refundBucket, refundBucket,
}

-- concurrency: free the slot taken at reservedAt, from the first live entry expiring at
-- or after its expiry that holds one.
local function release(r)
  local zkey = KEYS[r.p1]
  local m, t, held = firstHolding(zkey, max(slotExpiry(r, reservedAt), max(now, r.l) + 1))
  if m then takeFrom(r, zkey, m, t, held, 1) end
end

-- When a rule's state, as settled, goes idle (limiter.Set.IdleAt), by algorithm code.
local function field(r, f)
  if r.set and r.set[f] then return r.set[f] end
  return r[f]
end
local function newestScore(zkey)
  local newest = redis.call('ZRANGE', zkey, -1, -1, 'WITHSCORES')
  if #newest == 2 then return tonumber(newest[2]) end
  return 0
end
local function bucketIdle(r) return ceilfrac(field(r, 't'), field(r, 'f')) end
local idleAt = {
  function(r)
    if field(r, 'c') > 0 then return field(r, 'e') + r.p4 end
    return 0
  end,
  function(r)
    if field(r, 'c') > 0 or field(r, 'p') > 0 then return field(r, 's') + 2 * r.period end
    return 0
  end,
  function(r)
    if r.push then return r.push.at + r.period end
    return newestScore(KEYS[r.p1]) + r.period
  end,
  bucketIdle, bucketIdle,
  function(r) return newestScore(KEYS[r.p1]) end,
}

for _, c in ipairs(counters) do
  local changed = false
  for _, r in ipairs(c.rules) do
    if r.alg == 6 then release(r)
    elseif delta > 0 then charge[r.alg](r)
    elseif delta < 0 then refund[r.alg](r, -delta) end
    changed = changed or r.set ~= nil or r.push ~= nil
  end
  if changed then
    for _, r in ipairs(c.rules) do r.idle = idleAt[r.alg](r) end
    write(c)
  end
end
return 1
