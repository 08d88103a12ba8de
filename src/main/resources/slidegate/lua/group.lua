-- Group: a call of several policies (each with its own key), decided in one step: every policy admits and all are
-- charged at one instant, or none is charged (docs/strategies.md, "Several policies on one call").
--
-- KEYS     every decision's keys, one decision after the other (one Redis Cluster slot for all: one server)
-- ARGV[1]  how many decisions; then per decision: its script (1 sliding log, 2 fixed window, 3 sliding counter,
--          4 token bucket), its key count, its ARGV count, its ARGV as its own script takes them (ARGV[2] without
--          count-rejected: a refused call charges nothing)
--
-- Returns  {1, 0, reply_1, ..., reply_n} when every decision admits, each reply as its script's, with the same wait;
--          {0, i, reply_i} when decision i (1-based) refuses: its reply, the retry-after counted from its clock
--
-- First each decision on its own, in order, with its own max-wait: the first with no room within it refuses the call.
-- Then the call is placed at the latest of their instants: every key touched is put back as it was before this script
-- (DUMP and RESTORE, with its time to live) and every decision is asked again no earlier than that instant ('@' in its
-- ARGV[2]), within the longest max-wait of the call; one that has room only later moves the instant on, up to 8 times.
-- A strategy's error puts every key back and is the script's error.
--#include strategies.lua

local decisions = decisions_of(KEYS, ARGV)
for _, dec in ipairs(decisions) do
  local flags = tonumber(dec.args[2])
  dec.max_wait = (flags - flags % 2) / 2
end

-- each key as it was before this script first touched it: its DUMP (false when absent) and time to live
local before = {}
local function restore()
  for key, was in pairs(before) do
    if was.dump then
      local ttl = was.ttl
      if ttl < 0 then ttl = 0 end
      redis.call('RESTORE', key, ttl, was.dump, 'REPLACE')
    else
      redis.call('DEL', key)
    end
  end
end

-- decision d, no earlier than not_before (0: its own instant) and waiting up to max_wait
local function decide(d, not_before, max_wait)
  local dec = decisions[d]
  for _, key in ipairs(dec.keys) do
    if before[key] == nil then
      before[key] = {dump = redis.call('DUMP', key), ttl = redis.call('PTTL', key)}
    end
  end
  local args = {}
  for i, v in ipairs(dec.args) do args[i] = v end
  args[2] = string.format('%d', 2 * max_wait)
  if not_before > 0 then args[2] = args[2] .. '@' .. string.format('%d', not_before) end
  local r, err = run(dec, args)
  if not r then restore() end
  return r, err
end

local n = #decisions
local replies = {}

-- every decision in order, no earlier than not_before (0: each at its own first instant), waiting up to max_wait(d):
-- the script's answer when one fails or refuses (every key put back), else nil with every reply kept
local function pass(not_before, max_wait)
  for d = 1, n do
    local r, err = decide(d, not_before, max_wait(d))
    if not r then return redis.error_reply(err) end
    if r[1] == 0 then
      restore()
      return {0, d, r}
    end
    replies[d] = r
  end
  return nil
end

local answer = pass(0, function(d) return decisions[d].max_wait end)
if answer then return answer end
local at, budget = 0, 0
for d = 1, n do
  if replies[d][4] + replies[d][3] > at then at = replies[d][4] + replies[d][3] end
  if decisions[d].max_wait > budget then budget = decisions[d].max_wait end
end

local function admitted()
  local out = {1, 0}
  for d = 1, n do out[d + 2] = replies[d] end
  return out
end

-- every decision at once: the call is placed now (the script runs alone: the microseconds between them are one moment)
local waits = false
for d = 1, n do
  if replies[d][3] > 0 then waits = true end
end
if not waits then return admitted() end

for round = 1, 8 do
  restore()
  answer = pass(at, function() return budget end)
  if answer then return answer end
  local later, mover = at, 0
  for d = 1, n do
    if replies[d][4] + replies[d][3] > later then later, mover = replies[d][4] + replies[d][3], d end
  end
  if mover == 0 then return admitted() end
  at = later
  if round == 8 then -- still moving after every round: refused, room no earlier than the latest instant found
    restore()
    local r = replies[mover]
    r[1], r[2] = 0, 0
    return {0, mover, r}
  end
end
