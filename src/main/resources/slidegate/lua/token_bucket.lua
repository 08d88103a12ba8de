-- Token bucket (GCRA): decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[1]  one hash per (policy, key), one slot per bucket N/W counted: field '<W>:<N>' = theoretical
--          arrival time (TAT) in us. The slots are the limits in force and buckets counted under other
--          limits before (an override) that are not full again: every charge is recorded in all of
--          them, a bucket not in force never past empty (TAT <= now + N*T); a limit without a bucket
--          of its N and W starts with the most permits any slot has used (at most its N) at its rate
--          (docs/strategies.md, "When limits change"); a bucket not in force that is full again when a
--          charge comes is forgotten. The key expires when every bucket is full. Field 'r' = the latest
--          instant a permit was reserved for (a call that waits) or a hold ends: no call is placed before
--          it; field 'h' = the end of a hold (hold.lua).
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views)
-- ARGV[2]  2 * max-wait (us) + 1 when refused attempts are charged too (count-rejected), else + 0
-- ARGV[3]  unused (0): the strategy has no parameter
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us when refused or the
--          wait when admitted (the permits are recorded that long after now), now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
--
-- Limit N/W emits a permit every T = ceil(W / N) and holds at most N: a call of cost c passes iff
-- max(TAT, now) + c*T - now <= N*T, and then TAT = max(TAT, now) + c*T.
local key = KEYS[1]
local cost = tonumber(ARGV[1])
--#include decision_flags.lua
local nlimits = (#ARGV - 3) / 2

local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
-- calls are placed in order of arrival: none before a permit already reserved for a later instant
local reserved = tonumber(redis.call('HGET', key, 'r') or '0')
local now = clock
if reserved > now then now = reserved end
if not_before > now then now = not_before end

local function idiv(a, b) return (a - math.fmod(a, b)) / b end

local function interval_of(field)
  local sep = string.find(field, ':', 1, true)
  local w, n = tonumber(string.sub(field, 1, sep - 1)), tonumber(string.sub(field, sep + 1))
  local t = idiv(w + n - 1, n)
  if t < 1 then t = 1 end
  return t, n
end

-- whole permits a bucket has used: how far it is drained, rounded up
local function used_of(tat, t)
  local ahead = tat - now
  if ahead < 0 then ahead = 0 end
  return idiv(ahead + t - 1, t)
end

-- the buckets stored, by field; never behind now: a failover's slower clock only refuses more
local stored = {}
local all = redis.call('HGETALL', key)
local carry = 0
for j = 1, #all, 2 do
  if all[j] ~= 'r' and all[j] ~= 'h' then
    local tat = tonumber(all[j + 1])
    stored[all[j]] = tat
    local used = used_of(tat, interval_of(all[j]))
    if used > carry then carry = used end
  end
end

local fields, permits, interval, tat, fresh, in_force = {}, {}, {}, {}, {}, {}
local possible = true
for i = 1, nlimits do
  fields[i] = ARGV[3 + 2 * i] .. ':' .. ARGV[2 + 2 * i]
  in_force[fields[i]] = true
  interval[i], permits[i] = interval_of(fields[i])
  if stored[fields[i]] then
    tat[i] = stored[fields[i]]
  else
    -- a bucket not counted before starts with the carry: that many permits used, at most its N
    local used = carry
    if used > permits[i] then used = permits[i] end
    tat[i] = now + used * interval[i]
    fresh[i] = used > 0
  end
  if tat[i] < now then tat[i] = now end
  if cost > permits[i] then possible = false end
end

local function waits()
  local tripped, retry = -1, 0
  for i = 1, nlimits do
    local wait = tat[i] + cost * interval[i] - now - permits[i] * interval[i]
    if cost > permits[i] then wait = tonumber(ARGV[3 + 2 * i]) end
    if wait > retry then tripped, retry = i - 1, wait end
  end
  return tripped, retry
end

local tripped, retry = waits()
local allowed = tripped < 0
local wait = now - clock + retry
if cost > 0 then
  allowed = possible and wait <= max_wait
  if allowed and wait > 0 then -- a reservation: every bucket has room then
    now = clock + wait
    for i = 1, nlimits do
      if tat[i] < now then tat[i] = now end
    end
    tripped, retry = -1, 0
  elseif not allowed then
    if tripped < 0 then -- room at the first free instant, but later than this call may wait: the fullest bucket
      local least = nil
      for i = 1, nlimits do
        local left = permits[i] - used_of(tat[i], interval[i])
        if left < 0 then left = 0 end
        if least == nil or left < least then least, tripped = left, i - 1 end
      end
    end
    retry = wait
  end
end
if cost > 0 then
  local charging = allowed or count_rejected
  local args, forgotten, latest = {}, {}, now
  for field, stat in pairs(stored) do
    if not in_force[field] then
      local t, n = interval_of(field)
      local ahead = stat
      if charging then
        if stat <= now then
          forgotten[#forgotten + 1] = field -- full again: forgotten instead of charged
        else
          -- charged, at most to empty, never drained by a charge
          local next = stat + cost * t
          if next > now + n * t then next = now + n * t end
          if next > stat then
            ahead = next
            args[#args + 1] = field
            args[#args + 1] = string.format('%d', next)
          end
        end
      end
      if ahead > latest then latest = ahead end
    end
  end
  for i = 1, nlimits do
    if charging then tat[i] = tat[i] + cost * interval[i] end
    if charging or fresh[i] then -- a carry is written when it is taken, whatever this call's outcome
      args[#args + 1] = fields[i]
      args[#args + 1] = string.format('%d', tat[i])
    end
    if tat[i] > latest then latest = tat[i] end
  end
  if #forgotten > 0 then redis.call('HDEL', key, unpack(forgotten)) end
  if charging and now > clock then
    args[#args + 1] = 'r'
    args[#args + 1] = string.format('%d', now)
  end
  if #args > 0 then
    redis.call('HSET', key, unpack(args))
    redis.call('PEXPIREAT', key, string.format('%d', math.ceil(latest / 1000) + 1))
  end
  if charging and not allowed then
    tripped, retry = waits()
    retry = retry + now - clock
  end
end

-- each bucket as of the instant the call is admitted at, or (refused) as of the first instant one could be placed
local early = 0
if not allowed then early = now - clock end
local out = {allowed and 1 or 0, tripped, allowed and (now - clock) or retry, clock}
for i = 1, nlimits do
  local ahead = tat[i] - now
  local used = idiv(ahead + interval[i] - 1, interval[i])
  local remaining = permits[i] - used
  if remaining < 0 then remaining = 0 end
  out[#out + 1] = remaining
  out[#out + 1] = (ahead == 0 and 0 or (math.fmod(ahead - 1, interval[i]) + 1)) + early
end
return out
