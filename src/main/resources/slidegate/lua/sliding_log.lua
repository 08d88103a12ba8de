-- Sliding log: decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[1]  sorted set of recorded permits: score = instant in microseconds, member unique per permit;
--          and at score 0 one member '#<N>/<W>,<N>/<W>...' naming the limits the log keeps instants
--          for (its slots): the limits in force and those counted under other limits before (an
--          override) that still count a permit (docs/strategies.md, "When limits change"). Every
--          limit reads the same instants, so a new limit needs no carry. Before each charge, a slot not
--          in force that counts nothing is forgotten, instants older than the longest window of the
--          slots are dropped, and the charge keeps the newest max(N) of them. A permit reserved for a later
--          instant (a call that waits) is a member '<instant>:r<m>' (m zero-padded to 12 digits): no call is placed before it.
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views); or
--          'a<cost>,<most>,<usable us>': permits taken ahead (docs/strategies.md, "Hot keys"): a batch of cost to most
--          permits, as many as every limit has room for now, which the instance admits calls from until now + usable.
--          Each is a member '<now>:b<j>' (j zero-padded to 12 digits) at score now + usable, the last instant it may
--          be used at: every later call counts it until then plus its window, so no window holds more than N however
--          the batch is used. Taken only at once (never while a call waits or the key is held); fewer than cost
--          permits is a refusal. The reply says, after the limits, how many were taken and that score.
--          While batch members lie ahead of the key's clock, the slots member carries '!<L>,<E>,<R>' after the slots:
--          L the last instant given to a call or a batch here (calls get later ones), E the last score of a batch,
--          R the last instant reserved for a call that waits (0: none): the newest member no longer says them.
-- ARGV[2]  2 * max-wait (us) + 1 when refused attempts are charged too (count-rejected), else + 0
-- ARGV[3]  unused here (the largest N of the policy: the slots say what to keep)
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us when refused or the
--          wait when admitted (the permits are recorded that long after now), now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
--
-- A permit at microsecond tick t counts through tick t + W (TIME truncates: the grant really happened
-- in [t, t + 1)), so a call of cost c passes limit N/W iff the (N - c + 1)-th newest entry is more
-- than W old.
local key = KEYS[1]
--#include decision_cost.lua
--#include decision_flags.lua
local nlimits = (#ARGV - 3) / 2
local taken = 0 -- a batch's permits (see ARGV[1])

-- One clock read per call: on Redis 7.0 TIME is not frozen inside a script.
local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])

-- Calls are placed in order of arrival: while a permit is reserved for a later instant, a call is decided
-- at that instant. Else time never steps backwards for a key (a new primary's clock may be behind after a
-- failover), and every call gets an instant of its own, so two calls in one microsecond are two entries.
-- the slots: the limits in force, then the kept ones the meta member names; after them, '!<L>,<E>,<R>' while batch
-- members lie ahead (see ARGV[1]), and '@<instant>' a hold (hold.lua): no call is placed before it either
local meta = redis.call('ZRANGEBYSCORE', key, 0, 0)[1]
local meta_slots, hold = meta, 0
local a_last, a_end, a_reserved = 0, 0, 0
if meta then
  local at = string.find(meta, '@', 1, true)
  if at then
    hold = tonumber(string.sub(meta, at + 1))
    meta_slots = string.sub(meta, 1, at - 1)
  end
  local bang = string.find(meta_slots, '!', 1, true)
  if bang then
    local c1 = string.find(meta_slots, ',', bang, true)
    local c2 = string.find(meta_slots, ',', c1 + 1, true)
    a_last = tonumber(string.sub(meta_slots, bang + 1, c1 - 1))
    a_end = tonumber(string.sub(meta_slots, c1 + 1, c2 - 1))
    a_reserved = tonumber(string.sub(meta_slots, c2 + 1))
    meta_slots = string.sub(meta_slots, 1, bang - 1)
  end
end
-- batch members ahead of the clock: the marker says what the newest member would (once they are all behind, the
-- newest member says it again, and the next charge drops the marker)
local marked = a_end >= clock
local newest, last, queued, top
if marked then
  last, queued = a_last, a_reserved > clock
  top = math.max(a_last, a_end, a_reserved)
else
  newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  last = newest[2] and tonumber(newest[2]) or 0
  queued = last > clock and string.find(newest[1], ':r', 1, true) ~= nil
  top = last
end
if not queued and last > 0 and clock <= last then clock = last + 1 end
local now = clock
if queued then now = marked and a_reserved or last end
if hold > now then now = hold end
if not_before > now then now = not_before end
local slots, in_force = {}, {}
for i = 1, nlimits do
  local spec = ARGV[2 + 2 * i] .. '/' .. ARGV[3 + 2 * i]
  slots[#slots + 1] = spec
  in_force[spec] = true
end
if meta then
  for spec in string.gmatch(string.sub(meta_slots, 2), '[^,]+') do
    if not in_force[spec] then slots[#slots + 1] = spec end
  end
end

local function parts(spec)
  local sep = string.find(spec, '/', 1, true)
  return tonumber(string.sub(spec, 1, sep - 1)), tonumber(string.sub(spec, sep + 1))
end

-- A limit that comes now (an override) reads no instant that had left every window the key counted before it: when
-- none counts in any slot the meta member names (the newest is older than their longest window), the instants count
-- nowhere, as a new limit of another strategy starts from what the slots hold (docs/strategies.md, "When limits
-- change"); they are read as absent, and dropped by the next charge.
local stale = false
if meta and last > 0 then
  local before, longest_before, comes = {}, 0, false
  for spec in string.gmatch(string.sub(meta_slots, 2), '[^,]+') do
    before[spec] = true
    local _, w = parts(spec)
    if w > longest_before then longest_before = w end
  end
  for spec, _ in pairs(in_force) do
    if not before[spec] then comes = true end
  end
  stale = comes and top + longest_before + 1 <= now
end

-- The first tick at which a permit recorded at tick t no longer counts in a window of w.
local function free_at(t, w)
  return t + w + 1
end

local function kth_newest(k)
  if stale then return nil end
  local r = redis.call('ZRANGE', key, -k, -k, 'WITHSCORES')
  if r[2] and tonumber(r[2]) > 0 then return tonumber(r[2]) end
  return nil
end

local function waits()
  local tripped, retry = -1, 0
  for i = 1, nlimits do
    local n = tonumber(ARGV[2 + 2 * i])
    local w = tonumber(ARGV[3 + 2 * i])
    local wait = 0
    if cost > n then
      wait = w
    else
      local t = kth_newest(n - cost + 1)
      if t then wait = free_at(t, w) - now end
    end
    if wait > retry then
      tripped, retry = i - 1, wait
    end
  end
  return tripped, retry
end

local function charge()
  if stale then
    redis.call('ZREMRANGEBYSCORE', key, '(0', '+inf')
    stale = false
  end
  -- a slot not in force that counts nothing is forgotten
  local kept, capacity, longest = {}, 0, 0
  for _, spec in ipairs(slots) do
    local n, w = parts(spec)
    if in_force[spec] or (top > 0 and free_at(top, w) > now) then
      kept[#kept + 1] = spec
      if n > capacity then capacity = n end
      if w > longest then longest = w end
    end
  end
  -- instants older than the longest window count in no slot
  redis.call('ZREMRANGEBYSCORE', key, '(0', '(' .. string.format('%d', now - longest))
  local stamp = string.format('%d', now)
  -- a permit for a later instant is marked reserved; reserved permits may share an instant (waiting calls, and
  -- refused attempts charged there), numbered on from the highest number at it: the numbers are zero-padded so
  -- that they sort as numbers, the newest member holds the highest, and a number trimmed away is never given
  -- again (a count of the members at the instant would give the name of one still there: a lost permit)
  local mark, first, score, count = ':', 0, stamp, cost
  if most_ahead > 0 then -- a batch: scored at the last instant its permits may be used at
    mark, score, count = ':b', string.format('%d', now + usable), taken
  elseif now > clock then
    mark = ':r'
    if marked and a_reserved == now then
      local top_at = redis.call('ZREVRANGEBYSCORE', key, stamp, stamp, 'LIMIT', 0, 1)[1]
      local at = top_at and string.find(top_at, ':r', 1, true)
      first = at and tonumber(string.sub(top_at, at + 2)) or 0
    elseif not marked and last == now then
      local at = string.find(newest[1], ':r', 1, true)
      first = at and tonumber(string.sub(newest[1], at + 2)) or 0
    end
  end
  local j = 1
  while j <= count do
    local args = {}
    local upto = math.min(count, j + 499)
    for m = j, upto do
      args[#args + 1] = score
      args[#args + 1] = stamp .. mark .. string.format('%012d', first + m)
    end
    redis.call('ZADD', key, unpack(args))
    j = upto + 1
  end
  -- the marker, while batch members lie ahead of the clock
  if most_ahead > 0 then
    marked, a_last, a_end = true, now, math.max(a_end, now + usable)
  elseif marked then
    if mark == ':r' then a_reserved = math.max(a_reserved, now) else a_last = math.max(a_last, now) end
  end
  -- a hold stays said until it ends (a call that waited asks for it before it goes out: hold.lua)
  local spec = '#' .. table.concat(kept, ',')
  if marked then
    spec = spec .. '!' .. string.format('%d', a_last) .. ',' .. string.format('%d', a_end) .. ','
        .. string.format('%d', a_reserved)
  end
  if hold > clock then spec = spec .. '@' .. string.format('%d', hold) end
  if spec ~= meta then
    if meta then redis.call('ZREM', key, meta) end
    redis.call('ZADD', key, 0, spec)
  end
  local entries = redis.call('ZCARD', key) - 1
  if entries > capacity then
    redis.call('ZREMRANGEBYRANK', key, 1, entries - capacity)
  end
  local until_ = now
  if marked and a_end > until_ then until_ = a_end end
  redis.call('PEXPIRE', key, math.floor((longest + until_ - clock) / 1000) + 1)
end

local possible = true
for i = 1, nlimits do
  if cost > tonumber(ARGV[2 + 2 * i]) then possible = false end
end

-- where limit i stands at now: the permits it counts, and when the oldest of them frees
local function standing(i)
  local n = tonumber(ARGV[2 + 2 * i])
  local w = tonumber(ARGV[3 + 2 * i])
  local used = 0
  if not stale then used = redis.call('ZCOUNT', key, string.format('%d', now - w), '+inf') end
  if used > n then used = n end
  local reset = 0
  if used > 0 then reset = free_at(kth_newest(used), w) - now end
  return n - used, reset
end

local tripped, retry = waits()
local allowed = tripped < 0
local wait = now - clock + retry
-- a batch: as many as every limit has room for now, cost at least, most at most
if most_ahead > 0 then
  count_rejected, max_wait, taken = false, 0, most_ahead
  if now == clock then
    for i = 1, nlimits do
      local left = standing(i)
      if left < taken then taken = left end
    end
  end
  if taken < cost then taken = 0 end
end
if cost > 0 then
  allowed = possible and wait <= max_wait and (most_ahead == 0 or taken > 0)
  if allowed then
    now = clock + wait -- at once, or at the instant every limit has room: a reservation
    tripped, retry = -1, 0
    charge()
  else
    if tripped < 0 then -- room at the first free instant, but later than this call may wait: the fullest limit
      local least = nil
      for i = 1, nlimits do
        local left = standing(i)
        if least == nil or left < least then least, tripped = left, i - 1 end
      end
    end
    retry = wait
    if count_rejected then
      charge()
      tripped, retry = waits()
      retry = retry + now - clock
    end
  end
end

-- each limit as of the instant the call is admitted at, or (refused) as of the first instant one could be placed
local early = 0
if not allowed then early = now - clock end
local out = {allowed and 1 or 0, tripped, allowed and (now - clock) or retry, clock}
for i = 1, nlimits do
  local left, reset = standing(i)
  out[#out + 1] = left
  out[#out + 1] = reset + early
end
if most_ahead > 0 then
  out[#out + 1] = allowed and taken or 0
  out[#out + 1] = now + usable
end
return out
