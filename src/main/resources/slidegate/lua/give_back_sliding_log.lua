-- Give-back of a batch of a sliding log (sliding_log.lua, ARGV[1] 'a...'): the permits of one batch its instance did
-- not use, now that it uses none of them any more (its time is up, the key went cold, or its limits changed).
--
-- KEYS[1]  the log
-- ARGV[1]  the instant the batch was taken at (its members' '<instant>:b<j>')
-- ARGV[2]  the first unused j (1-based); ARGV[3] the last j of the batch
--
-- Returns  how many were given back (none when the log dropped them meanwhile: a reset, or the window passed)
local key, at = KEYS[1], ARGV[1]
local from, to = tonumber(ARGV[2]), tonumber(ARGV[3])
local given, j = 0, from
while j <= to do
  local names = {}
  for m = j, math.min(to, j + 499) do
    names[#names + 1] = at .. ':b' .. string.format('%012d', m)
  end
  given = given + redis.call('ZREM', key, unpack(names))
  j = j + 500
end
return given
