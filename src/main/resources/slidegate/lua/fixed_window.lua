-- Fixed window: decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[1]  one hash per (policy, key), one slot per window length W counted (microseconds):
--          'i:<W>' = index of the epoch-aligned window it counts (now / W), 'c:<W>' = permits in it.
--          The slots are the limits in force and those counted under other limits before (an
--          override) that still hold a permit: every charge is recorded in all of them; a limit of a
--          window not counted before starts from the most permits any slot holds (docs/strategies.md,
--          "When limits change"); a slot not in force that holds nothing when a charge comes is
--          forgotten. The key expires at the end of the latest window a slot counts in (PEXPIREAT to a
--          window's end: a window is never extended). Field 'r' = the latest instant a permit was reserved
--          for (a call that waits): no call is placed before it.
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views); or
--          'a<cost>,<most>,<usable us>': permits taken ahead (docs/strategies.md, "Hot keys"): cost to most permits, as
--          many as every limit's window has room for now, charged now like a call of that many, which the instance
--          admits calls from until now + usable or the end of the first window that ends, whichever comes first: every
--          use falls in the windows that counted it. Only at once (never while a call waits or the key is held);
--          fewer than cost is a refusal. The reply says, after the limits, how many were taken and the instant before
--          which they must be used.
-- ARGV[2]  2 * max-wait (us) + 1 when refused attempts are charged too (count-rejected), else + 0
-- ARGV[3]  unused (0): the strategy has no parameter
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit; a limit counted per calendar period has for W
--          '<name>@<longest>,<b1>,<b2>,...': the longest a period can be, then the instants its periods start and
--          end around now, from the service (which knows the time zone's rules); the server's clock picks the period. Its slot is '<name>' with field 'e:<name>' = the
--          end of the period it counts, and 'i:<name>' = that period's start.
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us when refused or the
--          wait when admitted (the permits are recorded that long after now), now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
local key = KEYS[1]
--#include decision_cost.lua
--#include decision_flags.lua
local nlimits = (#ARGV - 3) / 2

local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
-- calls are placed in order of arrival: none before a permit already reserved for a later instant
local reserved = tonumber(redis.call('HGET', key, 'r') or '0')
local now = clock
if reserved > now then now = reserved end
if not_before > now then now = not_before end

-- exact integer division (math.fmod is exact on doubles)
local function idiv(a, b) return (a - math.fmod(a, b)) / b end

-- the period boundaries of the limits counted per calendar period, by slot name
local bounds, names, longest = {}, {}, {}
for i = 1, nlimits do
  local w = ARGV[3 + 2 * i]
  local at = string.find(w, '@', 1, true)
  if at then
    local name = string.sub(w, 1, at - 1)
    local b = {}
    for v in string.gmatch(string.sub(w, at + 1), '[^,]+') do b[#b + 1] = tonumber(v) end
    longest[name] = table.remove(b, 1)
    bounds[name] = b
    names[i] = name
  else
    names[i] = w
  end
end

-- the slots stored, by window (as ARGV writes it) or period name
local stored = {}
local all = redis.call('HGETALL', key)
for j = 1, #all, 2 do
  if all[j] ~= 'r' and all[j] ~= 'h' then
    local w = string.sub(all[j], 3)
    stored[w] = stored[w] or {idx = -1, count = 0}
    local kind = string.sub(all[j], 1, 1)
    if kind == 'i' then stored[w].idx = tonumber(all[j + 1])
    elseif kind == 'e' then stored[w].ends = tonumber(all[j + 1])
    else stored[w].count = tonumber(all[j + 1]) end
  end
end

-- the window of slot w that holds instant t: its index (a period's start) and its end (exclusive)
local function window_of(w, t)
  local b = bounds[w]
  if b then
    for k = 1, #b - 1 do
      if t >= b[k] and t < b[k + 1] then return b[k], b[k + 1] end
    end
    return error('the calendar periods given do not hold the server time ' .. string.format('%d', t))
  end
  local size = tonumber(w)
  if size == nil then return nil, nil end -- a calendar slot no longer in force: only its stored period is known
  local idx = idiv(t, size)
  return idx, (idx + 1) * size
end

-- the window a slot counts in now, what it holds there and when it ends: never step back into an older
-- window (a primary whose clock is behind)
local function current(w, s)
  local idx, ends = window_of(w, now)
  if idx == nil then -- kept calendar slot: its stored period, while it lasts
    if s and s.ends and now < s.ends then return s.idx, s.count, s.ends end
    return -1, 0, now
  end
  if s and s.idx >= idx then
    return s.idx, s.count, s.ends or (s.idx + 1) * tonumber(w)
  end
  return idx, 0, ends
end

local carry = 0
for w, s in pairs(stored) do
  local _, used = current(w, s)
  if used > carry then carry = used end
end

local permits, window, index, used, ending, in_force, fresh = {}, {}, {}, {}, {}, {}, {}
local possible = true
-- each limit in force as it stands at now
local function stand()
  for i = 1, nlimits do
    local w = names[i]
    permits[i] = tonumber(ARGV[2 + 2 * i])
    in_force[w] = true
    if cost > permits[i] then possible = false end
    index[i], used[i], ending[i] = current(w, stored[w])
    window[i] = longest[w] or tonumber(w)
    if not stored[w] then
      used[i] = carry -- a window not counted before starts from the carry, in the window it is taken in
      fresh[i] = carry > 0
      stored[w] = {idx = index[i], count = carry, ends = bounds[w] and ending[i] or nil}
    end
  end
end
stand()

-- a batch: as many as every limit has room for now (cost at least, most at most), usable until the first window ends
local taken, last_use = 0, 0
if most_ahead > 0 then
  count_rejected, max_wait = false, 0
  taken, last_use = most_ahead, now + usable
  for i = 1, nlimits do
    local left = permits[i] - used[i]
    if left < taken then taken = left end
    if ending[i] < last_use then last_use = ending[i] end
  end
  if now > clock or taken < cost then taken = 0 else cost = taken end
end

local function waits()
  local tripped, retry = -1, 0
  for i = 1, nlimits do
    local wait = 0
    if cost > permits[i] then
      wait = window[i]
    elseif used[i] + cost > permits[i] then
      wait = ending[i] - now
    end
    if wait > retry then tripped, retry = i - 1, wait end
  end
  return tripped, retry
end

local tripped, retry = waits()
local allowed = tripped < 0
local wait = now - clock + retry
if cost > 0 then
  allowed = possible and wait <= max_wait
  if allowed and wait > 0 then -- a reservation: every limit has room then
    now = clock + wait
    stand()
    tripped, retry = -1, 0
  elseif not allowed then
    if tripped < 0 then -- room at the first free instant, but later than this call may wait: the fullest limit
      local least = nil
      for i = 1, nlimits do
        local left = permits[i] - used[i]
        if left < 0 then left = 0 end
        if least == nil or left < least then least, tripped = left, i - 1 end
      end
    end
    retry = wait
  end
end
if cost > 0 then
  local args, forgotten, ends = {}, {}, 0
  local charging = allowed or count_rejected
  for w, s in pairs(stored) do
    local idx, held, e = current(w, s)
    if held > 0 then -- the key must outlive every window a slot holds something in
      if e > ends then ends = e end
    end
    -- every slot is charged; one not in force that holds nothing is forgotten instead
    if charging and not in_force[w] then
      if held == 0 then
        forgotten[#forgotten + 1] = 'i:' .. w
        forgotten[#forgotten + 1] = 'c:' .. w
        if s.ends then forgotten[#forgotten + 1] = 'e:' .. w end
      else
        args[#args + 1] = 'c:' .. w
        args[#args + 1] = string.format('%d', held + cost)
      end
    end
  end
  for i = 1, nlimits do
    if charging then used[i] = used[i] + cost end
    if charging or fresh[i] then -- a carry is written when it is taken, whatever this call's outcome
      args[#args + 1] = 'i:' .. names[i]
      args[#args + 1] = string.format('%d', index[i])
      args[#args + 1] = 'c:' .. names[i]
      args[#args + 1] = string.format('%d', used[i])
      if bounds[names[i]] then
        args[#args + 1] = 'e:' .. names[i]
        args[#args + 1] = string.format('%d', ending[i])
      end
      if ending[i] > ends then ends = ending[i] end
    end
  end
  if #forgotten > 0 then redis.call('HDEL', key, unpack(forgotten)) end
  if charging and now > clock then
    args[#args + 1] = 'r'
    args[#args + 1] = string.format('%d', now)
  end
  if #args > 0 then
    redis.call('HSET', key, unpack(args))
    -- the end of the latest window a slot holds something in: it moves only when a window starts
    redis.call('PEXPIREAT', key, string.format('%d', math.ceil(ends / 1000)))
  end
  if charging and not allowed then
    -- the refused attempt counted (count-rejected): the wait starts from it, and a limit that had room
    -- before may be the one to wait for now
    tripped, retry = waits()
    retry = retry + now - clock
  end
end

-- each limit as of the instant the call is admitted at, or (refused) as of the first instant one could be placed
local ahead = 0
if not allowed then ahead = now - clock end
local out = {allowed and 1 or 0, tripped, allowed and (now - clock) or retry, clock}
for i = 1, nlimits do
  local remaining = permits[i] - used[i]
  if remaining < 0 then remaining = 0 end
  local reset = 0
  if used[i] > 0 then reset = ending[i] - now end
  out[#out + 1] = remaining
  out[#out + 1] = reset + ahead
end
if most_ahead > 0 then
  out[#out + 1] = allowed and taken or 0
  out[#out + 1] = last_use
end
return out
