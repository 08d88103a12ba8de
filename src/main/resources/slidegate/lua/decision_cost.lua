-- A decision's cost (every window strategy's script includes this; LuaScript.load puts it in place of its include
-- line): ARGV[1] is the permits this call weighs (>= 1; 0 reads the state and writes nothing: admin views), or
-- 'a<cost>,<most>,<usable us>': permits taken ahead (docs/strategies.md, "Hot keys on Redis"), cost to most of them,
-- usable for usable us at most; each strategy that takes them says how (most_ahead > 0 then).
local cost, most_ahead, usable = ARGV[1], 0, 0
if string.sub(cost, 1, 1) == 'a' then
  local c1 = string.find(cost, ',', 1, true)
  local c2 = string.find(cost, ',', c1 + 1, true)
  most_ahead, usable = tonumber(string.sub(cost, c1 + 1, c2 - 1)), tonumber(string.sub(cost, c2 + 1))
  cost = tonumber(string.sub(cost, 2, c1 - 1))
else
  cost = tonumber(cost)
end
