-- Settles a call of a fixed window (settle_prelude.lua says the arguments and the rule).
--#include settle_prelude.lua
local starts = {} -- a calendar slot's name: the start of the period that holds the admission
for i = 4, #ARGV do
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
return {now}
