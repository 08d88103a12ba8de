-- Settles a call of a token bucket (settle_prelude.lua says the arguments and the rule).
--#include settle_prelude.lua
local latest = 0
local args = {}
if delta > 0 then -- a bucket full again is no longer stored: it is charged from full
  local stored = {}
  for j = 1, #all, 2 do stored[all[j]] = true end
  for i = 4, #ARGV - 1, 2 do
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
return {now}
