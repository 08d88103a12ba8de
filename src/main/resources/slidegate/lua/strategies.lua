-- What a script call of several decisions needs (batch.lua and group.lua include this): every decision script as a
-- function of its own KEYS and ARGV, by number: 1 sliding log, 2 fixed window, 3 sliding counter, 4 token bucket,
-- 5 calls in flight (DecisionScripts checks that the numbers are its own); reading the decisions of the call; running one.
local strategies = {}
strategies[1] = function(KEYS, ARGV)
--#include sliding_log.lua
end
strategies[2] = function(KEYS, ARGV)
--#include fixed_window.lua
end
strategies[3] = function(KEYS, ARGV)
--#include sliding_counter.lua
end
strategies[4] = function(KEYS, ARGV)
--#include token_bucket.lua
end
strategies[5] = function(KEYS, ARGV)
--#include concurrency.lua
end

-- The decisions of the call: KEYS every decision's keys, one decision after the other; ARGV[1] how many, then per
-- decision its script's number, its key count, its ARGV count and its ARGV. Each {s = number, keys = ..., args = ...}.
local function decisions_of(KEYS, ARGV)
  local all, k, a = {}, 1, 2
  for d = 1, tonumber(ARGV[1]) do
    local s, nk, na = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    a = a + 3
    local keys, args = {}, {}
    for i = 1, nk do keys[i] = KEYS[k]; k = k + 1 end
    for i = 1, na do args[i] = ARGV[a]; a = a + 1 end
    all[d] = {s = s, keys = keys, args = args}
  end
  return all
end

-- Decision dec by its strategy's script, with args (its own when nil): the reply, or nil and the error it raised
local function run(dec, args)
  local ok, r = pcall(strategies[dec.s], dec.keys, args or dec.args)
  if ok then return r end
  if type(r) == 'table' and r.err then return nil, tostring(r.err) end
  return nil, tostring(r)
end