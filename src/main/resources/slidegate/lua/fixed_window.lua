-- Fixed window: decide and charge every limit of one policy for one key, all or nothing.
--
-- KEYS[i]  one hash per limit: field w = index of the epoch-aligned window it counts, c = count.
--          The key expires at the end of that window (PEXPIREAT, set once when the window's counter
--          is created and never extended), except KEYS[1], which lives as long as the longest-lived
--          of them: the admin listing and counts scan KEYS[1] alone, and a caller still counted in a
--          longer window must not vanish from them. A KEYS[1] that outlived its window is read as
--          empty (its w is older than the current window), like any other.
-- ARGV[1]  cost (permits this call weighs, >= 1); 0 reads the state and writes nothing (admin views)
-- ARGV[2]  1 when refused attempts are charged too (count-rejected), else 0
-- ARGV[3]  unused (0): the strategy has no parameter
-- ARGV[4], ARGV[5], ...  N and W (microseconds) of each limit, in the order of KEYS
--
-- Returns {allowed (1|0), tripped limit (0-based, -1 when allowed), retry-after us, now us,
--          remaining_1, reset_1 us, remaining_2, reset_2 us, ...}
-- (The call and reply shape shared by every strategy's script: see DecisionScripts.java.)
local cost = tonumber(ARGV[1])
local count_rejected = ARGV[2] == '1'
local nlimits = #KEYS

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

local index, used, window, permits = {}, {}, {}, {}
local tripped, retry = -1, 0
for i = 1, nlimits do
  local n = tonumber(ARGV[2 + 2 * i])
  local w = tonumber(ARGV[3 + 2 * i])
  -- exact integer division (math.fmod is exact on doubles)
  local idx = (now - math.fmod(now, w)) / w
  local stored = redis.call('HMGET', KEYS[i], 'w', 'c')
  local count = 0
  if stored[1] then
    local sidx = tonumber(stored[1])
    -- never step back into an older window (a primary whose clock is behind)
    if sidx >= idx then
      idx = sidx
      count = tonumber(stored[2]) or 0
    end
  end
  index[i], used[i], window[i], permits[i] = idx, count, w, n
  if cost > n or count + cost > n then
    local wait = (idx + 1) * w - now
    if wait > retry then
      tripped, retry = i - 1, wait
    end
  end
end

local allowed = tripped < 0
if cost > 0 and (allowed or count_rejected) then
  local last, renewed = 0, false
  for i = 1, nlimits do
    local ends = math.ceil((index[i] + 1) * window[i] / 1000)
    if ends > last then last = ends end
    if used[i] == 0 then
      -- a new window's counter: its expiry is set here, once
      redis.call('HSET', KEYS[i], 'w', string.format('%d', index[i]), 'c', cost)
      redis.call('PEXPIREAT', KEYS[i], string.format('%d', ends))
      renewed = true
    else
      redis.call('HINCRBY', KEYS[i], 'c', cost)
    end
    used[i] = used[i] + cost
  end
  if renewed and nlimits > 1 then
    -- KEYS[1] lives as long as the longest-lived counter (never shortened: windows only move forward)
    redis.call('PEXPIREAT', KEYS[1], string.format('%d', last))
  end
  if not allowed then
    -- the refused attempt counted (count-rejected): the wait starts from it, and a limit that had room
    -- before may be the one to wait for now
    tripped, retry = -1, 0
    for i = 1, nlimits do
      if cost > permits[i] or used[i] + cost > permits[i] then
        local wait = (index[i] + 1) * window[i] - now
        if wait > retry then tripped, retry = i - 1, wait end
      end
    end
  end
end

local out = {allowed and 1 or 0, tripped, allowed and 0 or retry, now}
for i = 1, nlimits do
  local remaining = permits[i] - used[i]
  if remaining < 0 then remaining = 0 end
  local reset = 0
  if used[i] > 0 then reset = (index[i] + 1) * window[i] - now end
  out[#out + 1] = remaining
  out[#out + 1] = reset
end
return out
