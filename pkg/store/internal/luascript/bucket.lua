-- edgelimit: the fast path of decide.lua for one counter with one token_bucket or
-- leaky_bucket rule whose burst x period (microseconds) is below 2^52.
--
-- It reads and writes the same fields as decide.lua ("<state id>|t", "|f", "|l" in the
-- key's hash), so a key moves between the two scripts when its rule set changes, and
-- it answers what decide.lua answers, integer for integer. What it leaves out is what
-- such a rule never needs: the rule table, the other algorithms and muldiv, since every
-- product limit x us below stays under 2^52 (us is at most the tolerance, and limit x
-- tolerance is at most burst x period). math.floor(x / d) is then exact: for integers
-- 0 <= x < 2^52 the quotient's rounding error is below 1/(2d), and a quotient that is
-- not an integer is at least 1/d away from one.
--
-- The TTL: rather than PEXPIRE on every write, the script keeps in the hash's field
-- "x" the instant (the callers' clock) until which its last PEXPIRE keeps the key, and
-- sets a new TTL, with twice the margin, only when the state's idle instant plus the
-- margin passes it: about once a margin for a busy key. decide.lua, which sets TTLs of
-- its own, writes "x" = 0 with every state it writes. Integers are formatted with %d
-- (a C long: exact below 2^53), not %.0f, which is slower.
--
-- KEYS[1]  the key's hash
-- ARGV[1]  now, microseconds since the Unix epoch (the caller's clock)
-- ARGV[2], ARGV[3]  cost x q and cost x r: the request's share of the emission
--          interval q + r/limit microseconds
-- ARGV[4]  "1" to consume when allowed, "0" to peek
-- ARGV[5]  the TTL margin in microseconds, beyond the state's idle instant
-- ARGV[6]  the rule's state id followed by "|"
-- ARGV[7..11] algorithm (4 token_bucket, 5 leaky_bucket), limit, period, tolUS,
--          tolFrac: the tolerance is tolUS + tolFrac/limit microseconds
-- Returns 5 integers: allowed (1/0), remaining, reset, retry after, delay.

local now, incQ, incR = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local id, limit, period = ARGV[6], tonumber(ARGV[8]), tonumber(ARGV[9])
local tolUS, tolFrac = tonumber(ARGV[10]), tonumber(ARGV[11])
local ft, ff, fl = id .. 't', id .. 'f', id .. 'l'
local v = redis.call('HMGET', KEYS[1], ft, ff, fl, 'x')
local tat, frac, at, atText = tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0, v[3]
if at < now then at, atText = now, ARGV[1] end
if tat < at then tat, frac = at, 0 end

-- The whole tokens in us + fr/limit microseconds (-limit < fr < limit):
-- floor((limit*us + fr) / period).
local function tokens(us, fr)
  if fr < 0 then us, fr = us - 1, fr + limit end
  if us < 0 then return 0 end
  return math.floor((limit * us + fr) / period)
end

-- The new TAT, nt + nf/limit with 0 <= nf < limit.
local nt, nf = tat + incQ, frac + incR
if nf >= limit then
  local k = math.floor(nf / limit)
  nt, nf = nt + k, nf - k * limit
end
local lt = at + tolUS
if nt > lt or (nt == lt and nf > tolFrac) then
  local rt, rf = nt - tolUS, nf - tolFrac
  if rf > 0 then rt = rt + 1 end -- rounded up; rf < 0 borrows the microsecond rt keeps
  local reset = tat
  if frac > 0 then reset = tat + 1 end
  return {0, tokens(lt - tat, tolFrac - frac), reset, rt - now, 0}
end
if ARGV[4] ~= '1' then
  local reset = tat
  if frac > 0 then reset = tat + 1 end
  return {1, tokens(lt - tat, tolFrac - frac), reset, 0, 0}
end
local idle, nfText = nt, '0'
if nf > 0 then idle, nfText = nt + 1, string.format('%d', nf) end
local margin = tonumber(ARGV[5])
if idle + margin > (tonumber(v[4]) or 0) then
  local ttl = math.ceil((idle - now + 2 * margin) / 1000)
  redis.call('HSET', KEYS[1], ft, string.format('%d', nt), ff, nfText, fl, atText, 'x', string.format('%d', now + ttl * 1000))
  redis.call('PEXPIRE', KEYS[1], ttl) -- after HSET, which may have created the key
else
  redis.call('HSET', KEYS[1], ft, string.format('%d', nt), ff, nfText, fl, atText)
end
local delay = 0
if ARGV[7] == '5' then
  delay = tat - at
  if frac > 0 then delay = delay + 1 end
end
return {1, tokens(lt - nt, tolFrac - nf), idle, 0, delay}
