-- Settle: charge a call's actual usage instead of its estimate, now that it is known (a policy with settle).
--
-- KEYS[1]  the hash of one (policy, key): a fixed window's, a sliding counter's or a token bucket's (their scripts
--          describe the fields)
-- ARGV[1]  'f' fixed window, 'c' sliding counter, 't' token bucket
-- ARGV[2]  the instant the call was admitted at (us): where its estimate was charged
-- ARGV[3]  actual usage - estimate (permits): more than 0 charges the rest, less than 0 refunds
-- ARGV[4]  cells per window (sliding counter), else 0
-- ARGV[5], ARGV[6], ...  token bucket: N and W (microseconds) of each limit in force, so that a bucket full again
--          (its key expired) is charged an overage too; fixed window: '<name>=<start>' for each limit counted per
--          calendar period, the start of the period that holds the admission
--
-- The difference goes where the estimate went, in every slot the hash keeps: the fixed window's counter when it still
-- counts the window of that instant; the sliding counter's cell of that instant when it is still kept; a token bucket
-- now (a refund never fills it past full, nor does a bucket already full gain anything). A count never goes below 0;
-- a window that no longer counts the admission is left alone. An overage keeps the key alive as long as its bucket
-- is drained.
--
-- Returns {now}
local key = KEYS[1]
local kind = ARGV[1]
local at = tonumber(ARGV[2])
local delta = tonumber(ARGV[3])
local cells = tonumber(ARGV[4])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
if delta == 0 then return {now} end

local function idiv(a, b) return (a - math.fmod(a, b)) / b end -- exact on doubles below 2^53

local all = redis.call('HGETALL', key)
if kind == 'f' then
  local starts = {} -- a calendar slot's name: the start of the period that holds the admission
  for i = 5, #ARGV do
    local sep = string.find(ARGV[i], '=', 1, true)
    starts[string.sub(ARGV[i], 1, sep - 1)] = tonumber(string.sub(ARGV[i], sep + 1))
  end
  for j = 1, #all, 2 do
    local f = all[j]
    if string.sub(f, 1, 2) == 'i:' then
      local w = string.sub(f, 3)
      local size = tonumber(w)
      local period = starts[w]
      if size then period = idiv(at, size) end
      if period and tonumber(all[j + 1]) == period then
        if redis.call('HINCRBY', key, 'c:' .. w, delta) < 0 then redis.call('HSET', key, 'c:' .. w, '0') end
      end
    end
  end
elseif kind == 'c' then
  for j = 1, #all, 2 do
    local f = all[j]
    if f ~= 't' and f ~= 'r' and f ~= 'h' and not string.find(f, ':', 1, true) then
      local size = idiv(tonumber(f) + cells - 1, cells)
      local field = f .. ':' .. string.format('%d', idiv(at, size))
      if redis.call('HEXISTS', key, field) == 1 then
        if redis.call('HINCRBY', key, field, delta) <= 0 then redis.call('HDEL', key, field) end
      end
    end
  end
else
  local latest = 0
  local args = {}
  if delta > 0 then -- a bucket full again is no longer stored: it is charged from full
    local stored = {}
    for j = 1, #all, 2 do stored[all[j]] = true end
    for i = 5, #ARGV - 1, 2 do
      local f = ARGV[i + 1] .. ':' .. ARGV[i]
      if not stored[f] then
        all[#all + 1] = f
        all[#all + 1] = string.format('%d', now)
      end
    end
  end
  for j = 1, #all, 2 do
    local f = all[j]
    local sep = string.find(f, ':', 1, true)
    if sep then -- '<W>:<N>' = the bucket's theoretical arrival time
      local w, n = tonumber(string.sub(f, 1, sep - 1)), tonumber(string.sub(f, sep + 1))
      local t = idiv(w + n - 1, n)
      if t < 1 then t = 1 end
      local tat = tonumber(all[j + 1])
      if delta > 0 then
        if tat < now then tat = now end
        local debt = delta * t
        if debt > 1125899906842624 then debt = 1125899906842624 end -- 2^50 us: 35 years
        tat = tat + debt
      elseif tat > now then
        tat = tat + delta * t
        if tat < now then tat = now end
      end
      args[#args + 1] = f
      args[#args + 1] = string.format('%d', tat)
      if tat > latest then latest = tat end
    end
  end
  if #args > 0 then
    redis.call('HSET', key, unpack(args))
    if delta > 0 then
      local ttl = redis.call('PTTL', key)
      local until_ms = math.ceil(latest / 1000) + 1
      if ttl < 0 or idiv(now, 1000) + ttl < until_ms then redis.call('PEXPIREAT', key, string.format('%d', until_ms)) end
    end
  end
end
return {now}
