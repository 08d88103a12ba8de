-- Refund of a sliding log: gives back permits charged at one instant, for a call of several policies that another of
-- its policies refused where one script could not decide them all (keys in different Redis Cluster slots), and for a
-- call that waited for a permit and will not run on it (Rates.giveBack: it woke too late, or its upstream's pause
-- came over it).
--
-- KEYS[1]  the log (sliding_log.lua)
-- ARGV[1]  the instant the permits were recorded at (us)
-- ARGV[2]  how many to give back
--
-- Returns  how many were given back: the permits at that instant, newest first, up to ARGV[2] (the permits recorded at
--          one instant are alike; none is left when the log dropped them meanwhile)
local members = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])
local want, given = tonumber(ARGV[2]), 0
for i = #members, 1, -1 do
  if given >= want then break end
  -- a call's own permits ('<instant>:<j>', reserved '<instant>:r<j>'), never a hot key's batch ('<instant>:b<j>', lent
  -- out by its instance at that score)
  local c = string.find(members[i], ':', 1, true)
  if c and string.sub(members[i], c + 1, c + 1) ~= 'b' then
    redis.call('ZREM', KEYS[1], members[i])
    given = given + 1
  end
end
return given
