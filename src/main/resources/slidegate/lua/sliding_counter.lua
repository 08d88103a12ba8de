-- Sliding counter: decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[1]  one hash per (policy, key): field '<W>:<cell>' = permits counted in that cell of the
--          limit of window W (cell = floor(now / cell size)), field 't' = the newest instant seen
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views)
-- ARGV[2]  1 when refused attempts are charged too (count-rejected), else 0
-- ARGV[3]  cells per window C
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us, now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
--
-- Limit N/W has cells of s = ceil(W / C) and counts the C + 1 newest cells [k - C, k]: the oldest,
-- partly overlapping cell in full, so no interval of length W ever holds more than N.
local key = KEYS[1]
local cost = tonumber(ARGV[1])
local count_rejected = ARGV[2] == '1'
local cells = tonumber(ARGV[3])
local nlimits = (#ARGV - 3) / 2

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local last = tonumber(redis.call('HGET', key, 't') or '0')
if now < last then now = last end -- time never steps backwards for a key

local function idiv(a, b) return (a - math.fmod(a, b)) / b end -- exact on doubles below 2^53

-- cells by window: a limit whose N changed (an override) keeps its cells; a window no limit has now
-- is dropped
local by_window = {}
local expired = {}
local all = redis.call('HGETALL', key)
for j = 1, #all, 2 do
  local sep = string.find(all[j], ':', 1, true)
  if sep then
    local w = string.sub(all[j], 1, sep - 1)
    by_window[w] = by_window[w] or {}
    by_window[w][tonumber(string.sub(all[j], sep + 1))] = tonumber(all[j + 1])
  end
end

local counts, permits, size, cell, max_span = {}, {}, {}, {}, 0
for i = 1, nlimits do
  permits[i] = tonumber(ARGV[2 + 2 * i])
  local w = tonumber(ARGV[3 + 2 * i])
  size[i] = idiv(w + cells - 1, cells)
  cell[i] = idiv(now, size[i])
  if w + size[i] > max_span then max_span = w + size[i] end
  counts[i] = by_window[ARGV[3 + 2 * i]] or {}
  by_window[ARGV[3 + 2 * i]] = nil
  for c, _ in pairs(counts[i]) do
    if c < cell[i] - cells then
      expired[#expired + 1] = ARGV[3 + 2 * i] .. ':' .. string.format('%d', c)
      counts[i][c] = nil
    end
  end
end
for w, cs in pairs(by_window) do
  for c, _ in pairs(cs) do expired[#expired + 1] = w .. ':' .. string.format('%d', c) end
end
if #expired > 0 and cost > 0 then redis.call('HDEL', key, unpack(expired)) end

local function sum(i, from, to)
  local s = 0
  for c, v in pairs(counts[i]) do
    if c >= from and c <= to then s = s + v end
  end
  return s
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
if cost > 0 and (allowed or count_rejected) then
  for i = 1, nlimits do
    redis.call('HINCRBY', key, ARGV[3 + 2 * i] .. ':' .. string.format('%d', cell[i]), cost)
    counts[i][cell[i]] = (counts[i][cell[i]] or 0) + cost
  end
  redis.call('HSET', key, 't', string.format('%d', now))
  redis.call('PEXPIRE', key, math.floor(max_span / 1000) + 1)
  if not allowed then tripped, retry = waits() end
end

local out = {allowed and 1 or 0, tripped, allowed and 0 or retry, now}
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
  out[#out + 1] = oldest and ((oldest + cells + 1) * size[i] - now) or 0
end
return out
