-- Settles a call of a sliding counter (settle_prelude.lua says the arguments and the rule).
--#include settle_prelude.lua
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
return {now}
