-- edgelimit: decide one request against every counter it touches (up to 6, each a key
-- with a whole rule set), in one atomic step: the request is allowed only if every rule
-- of every counter allows it, and is then consumed from all of them; a denial writes
-- nothing anywhere. With one counter and mode "0" it is a peek.
--
-- This script restates pkg/limiter (the specification: Set.Decide, DecideAll) for
-- Redis. Every number is an integer below 2^53, where Lua doubles are exact: counts
-- and costs are at most 10^12 (below 2^40), periods below 2^42 microseconds, instants
-- below 2^53. Products that could exceed that (a count times a period, about 2.7e24 at
-- the bounds; a cost times the remainder of the emission interval, up to 1e24) go
-- through muldiv, a long division in 10-bit digits. Numbers are written back as "%.0f"
-- strings: Redis would otherwise format them with 14 significant digits.
--
-- KEYS holds every key the script touches (Upstash's allow-key-locking requires it):
-- KEYS[1..k]  each counter's hash, in order, holding every rule's state in fields named
--             "<state id>|<field>"
-- KEYS[k+1..] one sorted set per sliding_log rule: members "<at>:<cost>", scored by at;
--             and per concurrency rule: members "<expiry>:<slots held>", scored by expiry
-- ARGV[1]   now, microseconds since the Unix epoch (the caller's clock)
-- ARGV[2]   cost
-- ARGV[3]   "1" to consume when allowed, "0" to peek
-- ARGV[4]   extra TTL in milliseconds, beyond the state's idle instant
-- ARGV[5]   number of counters, k
-- then for each counter: its number of rules n, and 8 arguments per rule: algorithm,
-- state id, limit, period, p1, p2, p3, p4
--   1 fixed_window    p1 window start, p2 window end (0 0 when anchored at the first
--                     request), p3 1 if anchored, p4 grace to keep a calendar window
--   2 sliding_window  -
--   3 sliding_log     p1 the index of its sorted set in KEYS
--   4 token_bucket,
--   5 leaky_bucket    p1 q, p2 r (emission interval q + r/limit), p3 tolUS, p4 tolFrac
--   6 concurrency     p1 the index of its sorted set in KEYS, p2 the lease, p3 its
--                     quantum (a slot expires at a multiple of it)
-- Returns 5 integers per rule, counter after counter, each counter's rules in order:
-- allowed (1/0), remaining, reset, retry after, delay.

local now, cost = tonumber(ARGV[1]), tonumber(ARGV[2])
local consume, margin, k = ARGV[3] == '1', tonumber(ARGV[4]), tonumber(ARGV[5])

local function str(x) return string.format('%.0f', x) end

-- floor(x / d) for integers |x| < 2^53, d > 0: the float quotient is off by at most 1.
local function fdiv(x, d)
  local k = math.floor(x / d)
  local r = x - k * d
  if r < 0 then return k - 1 elseif r >= d then return k + 1 end
  return k
end

-- floor((a*b + c) / d) and the remainder, for 0 <= a, c < 2^42, 0 <= b < 2^50 and
-- 0 < d < 2^42: Horner over b's 10-bit digits keeps every intermediate below 2^53 (a
-- step is r*1024 + a*digit with r < d, at most (2^42-1)*(1024+1023)). A quotient of
-- 2^50 or more saturates at 2^50 (remainder -1); callers compare it with a period,
-- which is smaller, or know it to be below 2^41.
local SAT = 1125899906842624
local function muldiv(a, b, c, d)
  local digits = {}
  for i = 1, 5 do
    local low = b % 1024
    digits[i] = low
    b = (b - low) / 1024
  end
  local q, r = 0, 0
  for i = 5, 1, -1 do
    local x = r * 1024 + a * digits[i]
    local k = fdiv(x, d)
    q, r = q * 1024 + k, x - k * d
    if q >= SAT then return SAT, -1 end
  end
  local k = fdiv(r + c, d)
  return q + k, r + c - k * d
end

-- floor((a*b - 1) / d), for a >= 1, with muldiv's bounds.
local function muldivBelow(a, b, d)
  local q, rem = muldiv(a, b, 0, d)
  if rem == 0 then return q - 1 end
  return q
end

local function max(a, b) if a > b then return a end return b end

-- Read the rules of the counter whose hash is hkey from ARGV at offset o, and their
-- fields in one HMGET; return the counter and the offset after it.
local function readCounter(hkey, o)
  local c = {hkey = hkey, rules = {}}
  local fields = {}
  for i = 1, tonumber(ARGV[o + 1]) do
    local a = o + 1 + (i - 1) * 8
    local r = {alg = tonumber(ARGV[a + 1]), id = ARGV[a + 2], limit = tonumber(ARGV[a + 3]),
      period = tonumber(ARGV[a + 4]), p1 = tonumber(ARGV[a + 5]), p2 = tonumber(ARGV[a + 6]),
      p3 = tonumber(ARGV[a + 7]), p4 = tonumber(ARGV[a + 8])}
    c.rules[i] = r
    for _, f in ipairs({'s', 'e', 'c', 'p', 't', 'f', 'l'}) do
      fields[#fields + 1] = r.id .. '|' .. f
    end
  end
  local values = redis.call('HMGET', c.hkey, unpack(fields))
  for i, r in ipairs(c.rules) do
    local v = (i - 1) * 7
    r.s, r.e, r.c, r.p = tonumber(values[v + 1]) or 0, tonumber(values[v + 2]) or 0, tonumber(values[v + 3]) or 0, tonumber(values[v + 4]) or 0
    r.t, r.f, r.l = tonumber(values[v + 5]) or 0, tonumber(values[v + 6]) or 0, tonumber(values[v + 7]) or 0
  end
  return c, o + 1 + #c.rules * 8
end

local counters, o = {}, 5
for i = 1, k do counters[i], o = readCounter(KEYS[i], o) end

-- fixed_window: the window a request at now falls in, and the cost admitted in it.
local function fixedWindow(r)
  if r.p3 == 1 then -- anchored at the first request
    if now < r.e then return r.s, r.e, r.c end
    return now, now + r.period, 0
  elseif r.s == r.p1 then return r.p1, r.p2, r.c
  elseif r.s > r.p1 then return r.s, r.e, r.c end -- clock skew: a later window
  return r.p1, r.p2, 0
end

local function fixed(r)
  local start, finish, count = fixedWindow(r)
  if count + cost > r.limit then
    return {0, max(r.limit - count, 0), finish, finish - now, 0} -- a settled charge may leave a debt
  end
  local out = {1, r.limit - count - cost, finish, 0, 0}
  if not consume then
    out[2] = r.limit - count
    if count == 0 then out[3] = now end
  end
  r.set = {s = start, e = finish, c = count + cost}
  r.idle = finish + r.p4
  return out
end

-- sliding_window: the effective now (the clock-skew rule), the current window's start,
-- and the previous and current windows' counts.
local function slidingCounts(r)
  local at = max(now, r.l)
  local ws = at - (at % r.period)
  if r.s == ws then return at, ws, r.p, r.c
  elseif r.s == ws - r.period then return at, ws, r.c, 0 end
  return at, ws, 0, 0
end

-- cost fits iff cost <= limit - curr - floor(prev*(period-e)/period)
local function sliding(r)
  local at, ws, prev, curr = slidingCounts(r)
  local p = r.period
  local weighted = muldiv(prev, p - (at - ws), 0, p)
  local avail = r.limit - curr - weighted
  local function reset(c)
    if c > 0 then return ws + 2 * p elseif prev > 0 then return ws + p end
    return at
  end
  if cost > avail then
    -- The first instant it fits: within this window when period-e can shrink to
    -- floor(((m+1)*period-1)/prev), else in the next, where prev is curr.
    local retry
    local m = r.limit - curr - cost
    if m >= 0 and prev > 0 then
      local e = p - muldivBelow(m + 1, p, prev)
      if e < p then retry = ws + e end
    end
    if not retry then
      if curr == 0 then retry = ws + p
      else retry = ws + p + max(p - muldivBelow(r.limit - cost + 1, p, curr), 0) end
    end
    return {0, max(avail, 0), reset(curr), retry - now, 0}
  end
  r.set = {s = ws, p = prev, c = curr + cost, l = at}
  r.idle = ws + 2 * p
  if not consume then return {1, avail, reset(curr), 0, 0} end
  return {1, avail - cost, reset(curr + cost), 0, 0}
end

-- sliding_log: its sorted set, the effective now (never before the newest entry), the
-- newest entry (member and score, or none), the cutoff at or before which entries have
-- left the window, and their total cost.
local function logLive(r)
  local zkey = KEYS[r.p1]
  local at = now
  local newest = redis.call('ZRANGE', zkey, -1, -1, 'WITHSCORES')
  if #newest == 2 then at = max(now, tonumber(newest[2])) end
  local cutoff = at - r.period
  local expiredCost = 0
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', zkey, '-inf', str(cutoff))) do
    expiredCost = expiredCost + tonumber(string.match(m, ':(%d+)$'))
  end
  return zkey, at, newest, cutoff, expiredCost
end

-- cost fits iff the cost admitted in (now-period, now] plus cost <= limit
local function log(r)
  local zkey, at, newest, cutoff, expiredCost = logLive(r)
  local used = r.c - expiredCost
  local function reset()
    if #newest == 2 and tonumber(newest[2]) > cutoff then return tonumber(newest[2]) + r.period end
    return at
  end
  if used + cost > r.limit then
    -- Wait until the oldest live entries have freed enough.
    local need, retry, offset = used + cost - r.limit, at, 0
    while need > 0 do
      local batch = redis.call('ZRANGEBYSCORE', zkey, '(' .. str(cutoff), '+inf', 'LIMIT', offset, 256)
      if #batch == 0 then break end
      for _, m in ipairs(batch) do
        local t, c = string.match(m, '^(%d+):(%d+)$')
        need, retry = need - tonumber(c), tonumber(t) + r.period
        if need <= 0 then break end
      end
      offset = offset + #batch
    end
    return {0, max(r.limit - used, 0), reset(), retry - now, 0}
  end
  r.push = {zkey = zkey, at = at, cutoff = cutoff, newest = newest, expiredCost = expiredCost}
  r.idle = at + r.period
  if not consume then return {1, r.limit - used, reset(), 0, 0} end
  return {1, r.limit - used - cost, at + r.period, 0, 0}
end

-- token_bucket, leaky_bucket: GCRA, TAT = t + f/limit microseconds.
local function norm(us, frac, limit)
  while frac < 0 do frac, us = frac + limit, us - 1 end
  local carry = fdiv(frac, limit)
  return us + carry, frac - carry * limit
end
local function tokens(us, frac, r)
  us, frac = norm(us, frac, r.limit)
  if us < 0 then return 0 end
  return (muldiv(r.limit, us, frac, r.period))
end
local function ceilfrac(us, frac) if frac > 0 then return us + 1 end return us end

local function bucket(r)
  local at = max(now, r.l)
  local tat, frac = r.t, r.f
  if tat < at then tat, frac = at, 0 end
  -- TAT + cost*(q + r/limit): cost*q is at most the fill time, but cost*r may pass
  -- 2^53, so its carry into whole microseconds comes from muldiv (a quotient <= cost).
  local carry, nf = muldiv(cost, r.p2, frac, r.limit)
  local nt = tat + cost * r.p1 + carry
  local lt, lf = at + r.p3, r.p4
  if nt > lt or (nt == lt and nf > lf) then
    local rt, rf = norm(nt - r.p3, nf - r.p4, r.limit)
    return {0, tokens(lt - tat, lf - frac, r), ceilfrac(tat, frac), ceilfrac(rt, rf) - now, 0}
  end
  r.set = {t = nt, f = nf, l = at}
  r.idle = ceilfrac(nt, nf)
  if not consume then return {1, tokens(lt - tat, lf - frac, r), ceilfrac(tat, frac), 0, 0} end
  local delay = 0
  if r.alg == 5 then delay = ceilfrac(tat, frac) - at end
  return {1, tokens(lt - nt, lf - nf, r), ceilfrac(nt, nf), 0, delay}
end

-- concurrency: a slot taken at instant t expires at the first multiple of the quantum
-- at or after t + lease.
local function slotExpiry(r, t)
  local e = t + r.p2
  local m = e % r.p3
  if m ~= 0 then e = e + r.p3 - m end
  return e
end

-- concurrency: its sorted set, the effective now (never before the latest instant that
-- took a slot), the number of entries expired by then and their slots, the slots still
-- held, and the live entries, oldest first, as {expiry, slots, member}.
local function concLive(r)
  local zkey, at = KEYS[r.p1], max(now, r.l)
  local expired, expiredSlots, live = 0, 0, {}
  for _, m in ipairs(redis.call('ZRANGE', zkey, 0, -1)) do
    local e, n = string.match(m, '^(%d+):(%d+)$')
    e, n = tonumber(e), tonumber(n)
    if e <= at then expired, expiredSlots = expired + 1, expiredSlots + n
    else live[#live + 1] = {e, n, m} end
  end
  return zkey, at, expired, expiredSlots, r.c - expiredSlots, live
end

-- concurrency: allowed iff fewer than limit slots are held; the request takes one,
-- whatever its cost. Reset is when every held slot has expired; a denial's retry is
-- when the first entry holding a slot expires.
local function conc(r)
  local zkey, at, expired, expiredSlots, held, live = concLive(r)
  local reset = at
  if #live > 0 then reset = live[#live][1] end
  if held < r.limit then
    local e = slotExpiry(r, at)
    r.slot = {zkey = zkey, at = at, expiry = e, expired = expired, expiredSlots = expiredSlots, newest = live[#live]}
    r.idle = e
    if not consume then return {1, r.limit - held, reset, 0, 0} end
    return {1, r.limit - held - 1, max(reset, e), 0, 0}
  end
  local retry = reset
  for _, l in ipairs(live) do
    if l[2] > 0 then retry = l[1] break end
  end
  return {0, max(r.limit - held, 0), reset, retry - now, 0}
end

-- Take the slot that conc found free: drop the expired entries and add one slot under
-- the expiry, to the newest entry when it has the same; the hash fields to set are
-- appended to hset.
local function takeSlot(r, hset)
  local sl = r.slot
  if sl.expired > 0 then redis.call('ZREMRANGEBYSCORE', sl.zkey, '-inf', str(sl.at)) end
  local n = 1
  if sl.newest and sl.newest[1] == sl.expiry then
    redis.call('ZREM', sl.zkey, sl.newest[3])
    n = n + sl.newest[2]
  end
  redis.call('ZADD', sl.zkey, str(sl.expiry), str(sl.expiry) .. ':' .. str(n))
  for f, v in pairs({c = r.c - sl.expiredSlots + 1, l = sl.at, z = 1}) do
    hset[#hset + 1] = r.id .. '|' .. f
    hset[#hset + 1] = str(v)
  end
end

-- Write counter c's new state, every rule having allowed (or settled): its hash, the
-- entries of its sliding logs and concurrency rules, and the TTL of each of its keys,
-- every sorted set's included, so that none outlives the hash that counts it.
local function write(c)
  local idle, hset, keys = now, {}, {c.hkey}
  for _, r in ipairs(c.rules) do
    if r.alg == 3 or r.alg == 6 then keys[#keys + 1] = KEYS[r.p1] end
    if r.slot then takeSlot(r, hset) end
    idle = max(idle, r.idle)
    if r.set then
      for f, v in pairs(r.set) do
        hset[#hset + 1] = r.id .. '|' .. f
        hset[#hset + 1] = str(v)
      end
    end
    if r.push then
      local pz = r.push
      if pz.expiredCost > 0 then redis.call('ZREMRANGEBYSCORE', pz.zkey, '-inf', str(pz.cutoff)) end
      local add = cost
      if #pz.newest == 2 and tonumber(pz.newest[2]) == pz.at then
        redis.call('ZREM', pz.zkey, pz.newest[1])
        add = add + tonumber(string.match(pz.newest[1], ':(%d+)$'))
      end
      redis.call('ZADD', pz.zkey, str(pz.at), str(pz.at) .. ':' .. str(add))
      hset[#hset + 1] = r.id .. '|c'
      hset[#hset + 1] = str(r.c - pz.expiredCost + cost)
      hset[#hset + 1] = r.id .. '|z' -- so that a reset finds the sorted set
      hset[#hset + 1] = '1'
    end
  end
  -- bucket.lua keeps in "x" until when its last TTL keeps the key; the TTL below is
  -- this script's own, so "x" no longer holds.
  hset[#hset + 1] = 'x'
  hset[#hset + 1] = '0'
  redis.call('HSET', c.hkey, unpack(hset))
  local ttl = math.ceil((idle - now) / 1000) + margin
  for _, key in ipairs(keys) do redis.call('PEXPIRE', key, ttl) end
end

-- The decision. (settle.lua takes the place of what follows: SettleScript.)
-- Evaluate every rule of every counter first; consume from all only when all allow.
local evaluate = {fixed, sliding, log, bucket, bucket, conc}
local out, allowed = {}, true
for _, c in ipairs(counters) do
  for _, r in ipairs(c.rules) do
    local res = evaluate[r.alg](r)
    allowed = allowed and res[1] == 1
    for j = 1, 5 do out[#out + 1] = res[j] end
  end
end
if consume and allowed then
  for _, c in ipairs(counters) do write(c) end
end
return out
