-- Sliding counter: decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[1]  one hash per (policy, key), one slot per window length W counted (microseconds): field
--          '<W>' marks the slot, '<W>:<cell>' = permits counted in that cell (cell = floor(now / cell
--          size)); field 't' = the newest instant a call was decided at; field 'r' = the latest instant a
--          permit was reserved for (a call that waits) or a hold ends: no call is placed before it; field
--          'h' = the end of a hold (hold.lua). The slots are the limits in force and those
--          counted under other limits before (an override) that still hold a permit: every charge is
--          recorded in all of them; a limit of a window not counted before starts from the most permits
--          any slot holds, in its current cell (docs/strategies.md, "When limits change"); a slot not in
--          force that holds nothing when a charge comes is forgotten.
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views); or
--          'a<cost>,<most>,<usable us>': permits taken ahead (docs/strategies.md, "Hot keys"): cost to most permits, as
--          many as every limit has room for now, charged now in each limit's current cell like a call of that many,
--          which the instance admits calls from until now + usable or the end of the first of those cells, whichever
--          comes first: every use falls in the cell that counted it. Only at once (never while a call waits or the key
--          is held); fewer than cost is a refusal. The reply says, after the limits, how many were taken and the
--          instant before which they must be used.
-- ARGV[2]  2 * max-wait (us) + 1 when refused attempts are charged too (count-rejected), else + 0
-- ARGV[3]  cells per window C
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us when refused or the
--          wait when admitted (the permits are recorded that long after now), now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
--
-- Limit N/W has cells of s = ceil(W / C) and counts the C + 1 newest cells [k - C, k]: the oldest,
-- partly overlapping cell in full, so no interval of length W ever holds more than N.
local key = KEYS[1]
--#include decision_cost.lua
--#include decision_flags.lua
local cells = tonumber(ARGV[3])
local nlimits = (#ARGV - 3) / 2

local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
local last = tonumber(redis.call('HGET', key, 't') or '0')
if clock < last then clock = last end -- time never steps backwards for a key
-- calls are placed in order of arrival: none before a permit already reserved for a later instant
local reserved = tonumber(redis.call('HGET', key, 'r') or '0')
local now = clock
if reserved > now then now = reserved end
if not_before > now then now = not_before end

local function idiv(a, b) return (a - math.fmod(a, b)) / b end -- exact on doubles below 2^53

-- the slots stored, by window (as ARGV writes it): their cells
local slots = {}
local all = redis.call('HGETALL', key)
for j = 1, #all, 2 do
  local f = all[j]
  if f ~= 't' and f ~= 'r' and f ~= 'h' then
    local sep = string.find(f, ':', 1, true)
    local w = sep and string.sub(f, 1, sep - 1) or f
    slots[w] = slots[w] or {}
    if sep then slots[w][tonumber(string.sub(f, sep + 1))] = tonumber(all[j + 1]) end
  end
end

local function size_of(w) return idiv(tonumber(w) + cells - 1, cells) end

-- the permits a slot's cells [k - C, k] hold
local function held(w, counts)
  local k = idiv(now, size_of(w))
  local s = 0
  for c, v in pairs(counts) do
    if c >= k - cells and c <= k then s = s + v end
  end
  return s
end

local carry = 0
for w, counts in pairs(slots) do
  local h = held(w, counts)
  if h > carry then carry = h end
end

local counts, permits, size, cell, in_force, fresh = {}, {}, {}, {}, {}, {}
local possible = true
for i = 1, nlimits do
  local w = ARGV[3 + 2 * i]
  permits[i] = tonumber(ARGV[2 + 2 * i])
  if cost > permits[i] then possible = false end
  size[i] = size_of(w)
  cell[i] = idiv(now, size[i])
  in_force[w] = true
  if slots[w] then
    counts[i] = slots[w]
  else
    counts[i] = {} -- a window not counted before starts from the carry, in its current cell
    if carry > 0 then
      counts[i][cell[i]] = carry
      fresh[i] = true
    end
  end
end

local function sum(i, from, to)
  local s = 0
  for c, v in pairs(counts[i]) do
    if c >= from and c <= to then s = s + v end
  end
  return s
end

-- a batch: as many as every limit has room for now (cost at least, most at most), usable until the first cell ends
local taken, last_use = 0, 0
if most_ahead > 0 then
  count_rejected, max_wait = false, 0
  taken, last_use = most_ahead, now + usable
  for i = 1, nlimits do
    local left = permits[i] - sum(i, cell[i] - cells, cell[i])
    if left < taken then taken = left end
    local ends = (cell[i] + 1) * size[i]
    if ends < last_use then last_use = ends end
  end
  if now > clock or taken < cost then taken = 0 else cost = taken end
end

local function waits()
  local tripped, retry = -1, 0
  for i = 1, nlimits do
    local wait = 0
    if cost > permits[i] then
      wait = tonumber(ARGV[3 + 2 * i])
    else
      for nxt = cell[i], cell[i] + cells + 1 do
        if sum(i, nxt - cells, cell[i]) + cost <= permits[i] then
          if nxt > cell[i] then wait = nxt * size[i] - now end
          break
        end
      end
    end
    if wait > retry then tripped, retry = i - 1, wait end
  end
  return tripped, retry
end

local tripped, retry = waits()
local allowed = tripped < 0
local wait = now - clock + retry
local carry_cell = {} -- the cell a new slot's carry was taken in
for i = 1, nlimits do carry_cell[i] = cell[i] end
if cost > 0 then
  allowed = possible and wait <= max_wait
  if allowed and wait > 0 then -- a reservation: every limit has room then
    now = clock + wait
    for i = 1, nlimits do cell[i] = idiv(now, size[i]) end
    tripped, retry = -1, 0
  elseif not allowed then
    if tripped < 0 then -- room at the first free instant, but later than this call may wait: the fullest limit
      local least = nil
      for i = 1, nlimits do
        local left = permits[i] - sum(i, cell[i] - cells, cell[i])
        if left < 0 then left = 0 end
        if least == nil or left < least then least, tripped = left, i - 1 end
      end
    end
    retry = wait
  end
end
if cost > 0 then
  local charging = allowed or count_rejected
  local expired, written, span = {}, {}, 0
  for w, cs in pairs(slots) do
    local k = idiv(now, size_of(w))
    if charging and not in_force[w] and held(w, cs) == 0 then
      -- a slot not in force that holds nothing is forgotten instead of charged
      expired[#expired + 1] = w
      for c, _ in pairs(cs) do expired[#expired + 1] = w .. ':' .. string.format('%d', c) end
    else
      for c, _ in pairs(cs) do
        if c < k - cells then expired[#expired + 1] = w .. ':' .. string.format('%d', c) end
      end
      if charging and not in_force[w] then
        redis.call('HINCRBY', key, w .. ':' .. string.format('%d', k), cost)
      end
      if tonumber(w) + size_of(w) > span then span = tonumber(w) + size_of(w) end
    end
  end
  if #expired > 0 then redis.call('HDEL', key, unpack(expired)) end
  for i = 1, nlimits do
    local w = ARGV[3 + 2 * i]
    if charging or fresh[i] then
      -- a carry is written when it is taken, whatever this call's outcome
      written[#written + 1] = w
      written[#written + 1] = '1'
      if fresh[i] then
        local charged = (charging and carry_cell[i] == cell[i]) and cost or 0
        written[#written + 1] = w .. ':' .. string.format('%d', carry_cell[i])
        written[#written + 1] = string.format('%d', counts[i][carry_cell[i]] + charged)
      end
    end
    if charging then
      if not fresh[i] or carry_cell[i] ~= cell[i] then
        redis.call('HINCRBY', key, w .. ':' .. string.format('%d', cell[i]), cost)
      end
      counts[i][cell[i]] = (counts[i][cell[i]] or 0) + cost
    end
    if tonumber(w) + size[i] > span then span = tonumber(w) + size[i] end
  end
  if #written > 0 then
    redis.call('HSET', key, unpack(written))
    if charging then redis.call('HSET', key, 't', string.format('%d', clock)) end
    if charging and now > clock then redis.call('HSET', key, 'r', string.format('%d', now)) end
    redis.call('PEXPIRE', key, math.floor((span + now - clock) / 1000) + 1)
  end
  if charging and not allowed then
    tripped, retry = waits()
    retry = retry + now - clock
  end
end

-- each limit as of the instant the call is admitted at, or (refused) as of the first instant one could be placed
local early = 0
if not allowed then early = now - clock end
local out = {allowed and 1 or 0, tripped, allowed and (now - clock) or retry, clock}
for i = 1, nlimits do
  local from = cell[i] - cells
  local used, oldest = 0, nil
  for c, v in pairs(counts[i]) do
    if c >= from and c <= cell[i] and v > 0 then
      used = used + v
      if oldest == nil or c < oldest then oldest = c end
    end
  end
  local remaining = permits[i] - used
  if remaining < 0 then remaining = 0 end
  out[#out + 1] = remaining
  out[#out + 1] = (oldest and ((oldest + cells + 1) * size[i] - now) or 0) + early
end
if most_ahead > 0 then
  out[#out + 1] = allowed and taken or 0
  out[#out + 1] = last_use
end
return out
